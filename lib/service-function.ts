import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Architecture, Runtime, type CfnFunction, type FunctionProps } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { join, relative, sep } from 'node:path';
import { bundleSettings } from './bundle-settings';
import { bundleDefines } from '../lambdas/composition/bundle-defines';
import type { FunctionDeclaration } from '../lambdas/function-manifest';
import { entryMetadataKey } from './template-metadata';

const projectRoot = join(__dirname, '..');

/** How long every function's logs are kept, the service's own and the CDK framework's alike. */
export const logRetention = RetentionDays.ONE_MONTH;

/**
 * A log group for a CDK framework function (custom resource provider, `AwsCustomResource`,
 * `BucketDeployment`), which otherwise logs to a group it creates on first run and keeps forever.
 */
export function frameworkLogGroup(scope: Construct, id: string): LogGroup {
  return new LogGroup(scope, id, { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
}


/**
 * A declared function's code as the bundler takes it: its entry, and the constants its manifest
 * row writes into its bundle (lambdas/composition/bundle-defines.ts).
 */
export function declaredCode(declaration: FunctionDeclaration): Pick<ServiceFunctionProps, 'entry' | 'define'> {
  return { entry: join(projectRoot, declaration.entry), define: bundleDefines(declaration) };
}

export interface ServiceFunctionProps {
  /** The entry file; it exports `handler`. */
  entry: string;
  /** Constants replaced at bundling (esbuild's `define`): a declared function's, from its manifest row. */
  define?: Record<string, string>;
  environment: Record<string, string>;
  description: string;
  timeout?: Duration;
  memorySize?: number;
  /** Extra Lambda options (a dead-letter queue, retries, event age, reserved concurrency). */
  options?: Partial<Pick<FunctionProps, 'deadLetterQueue' | 'retryAttempts' | 'deadLetterQueueEnabled' | 'maxEventAge' | 'reservedConcurrentExecutions'>>;
}

/**
 * Every function of the service is built the same way: bundled by local esbuild (never Docker),
 * Node.js 22 on arm64, minified with a source map beside it that the function does not load
 * (`bundleSettings`), the AWS SDK bundled at the project's pinned version, logs kept 30 days.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      environment: props.environment,
      logGroup,
      ...props.options,
      bundling: {
        ...bundleSettings,
        mainFields: [...bundleSettings.mainFields],
        format: OutputFormat.CJS,
        bundleAwsSDK: true,
        ...(props.define ? { define: props.define } : {}),
        forceDockerBundling: false,
      },
    });
    // The template names each function's source entry, so that tools reading it (the permission
    // check, the local stack runner) map a handler to its function without a hand-kept list.
    (this.node.defaultChild as CfnFunction).addMetadata(entryMetadataKey, relative(projectRoot, props.entry).split(sep).join('/'));
    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason: 'AWSLambdaBasicExecutionRole only lets the function write its own logs.',
      },
      {
        id: 'AwsSolutions-L1',
        reason: 'Pinned to Node.js 22, the runtime the service is built and tested for; moved deliberately.',
      },
    );
  }
}
