import { synthesisContext } from '../../local/stack/start-stack';
import { testConfig } from './local-service';

/**
 * The context of the one synthesis the suites share (the stack-shape suite runs it, the CDK CLI
 * suite reads it): the local test configuration's, as `npm run start:stack` gives it.
 */
export const stackContext = synthesisContext(testConfig);
