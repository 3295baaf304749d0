import { installLambdaResponseStreaming } from '../../local/lambda-response-streaming';

// Lambda runs Node.js 22; the SDK's notice about the local Node version is noise in test output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// The Lambda runtime's response-streaming global, which streamed handler modules need at import.
installLambdaResponseStreaming();
