import { Aws, CfnOutput, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { tableEnvironmentName, tableKeys } from '../lambdas/adapters/dynamodb/table-definitions';
import { Api } from './api';
import { ConsoleHosting } from './console-hosting';
import { ConsoleIdentity } from './console-identity';
import { InboundMail } from './inbound-mail';
import { Monitoring } from './monitoring';
import { serviceEnvironment } from './service-environment';
import { Storage } from './storage';
import { Sweeper } from './sweeper';

export interface TempmailStackProps extends StackProps {
  /** Stage name; API keys are bound to it, so a staging key never authenticates here. */
  stage: string;
  /** Receiving domains. */
  domains: string[];
  /** A Route 53 zone for the MX records, when the deployer gives one. */
  hostedZone?: { zoneId: string; zoneName: string };
  /** Where alarms are mailed, when given. */
  alarmEmail?: string;
}

/** The whole service in one stack: storage, the API, inbound mail, the sweeper and alarms. */
export class TempmailStack extends Stack {
  constructor(scope: Construct, id: string, props: TempmailStackProps) {
    super(scope, id, props);
    const storage = new Storage(this, 'Storage');
    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'HMAC secret of list cursors',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Rotating the cursor HMAC secret only invalidates outstanding cursors (valid one hour); rotate by redeploying.',
    });
    const environment = serviceEnvironment({
      storage,
      stage: props.stage,
      cursorSecret: cursorSecret.secretValue.unsafeUnwrap(),
    });

    // The console: the user pool first (the API's console authorizer needs it), then the hosting
    // (its address is where sign-in returns), then the client, whose id the console functions learn.
    const identity = new ConsoleIdentity(this, 'ConsoleIdentity', { stage: props.stage });
    const api = new Api(this, 'Api', { storage, stage: props.stage, environment, userPool: identity.userPool, issuer: identity.issuer });
    const hosting = new ConsoleHosting(this, 'Console', {
      restApi: api.restApi,
      stage: props.stage,
      issuerOrigins: [`https://cognito-idp.${Aws.REGION}.${Aws.URL_SUFFIX}`, identity.domain.baseUrl()],
    });
    const client = identity.addConsoleClient(hosting.consoleUrl);
    for (const fn of api.consoleFunctions) fn.addEnvironment('OIDC_CLIENT_ID', client.userPoolClientId);
    hosting.deploy({ issuer: identity.issuer, clientId: client.userPoolClientId });
    const inbound = new InboundMail(this, 'InboundMail', {
      storage,
      environment,
      domains: props.domains,
      hostedZone: props.hostedZone,
    });
    new Sweeper(this, 'Sweeper', { storage, environment });
    new Monitoring(this, 'Monitoring', {
      restApi: api.restApi,
      authorizer: api.authorizerFunction,
      parser: inbound.parserFunction,
      deadLetterQueue: inbound.deadLetterQueue,
      alarmEmail: props.alarmEmail,
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The CDK custom-resource provider (rule set activation) writes only its own logs.',
    });

    new CfnOutput(this, 'ApiUrl', { value: api.restApi.url });
    new CfnOutput(this, 'ConsoleUrl', { value: hosting.consoleUrl });
    new CfnOutput(this, 'ConsoleIssuer', { value: identity.issuer });
    new CfnOutput(this, 'ConsoleClientId', { value: client.userPoolClientId });
    new CfnOutput(this, 'MailBucket', { value: storage.bucket.bucketName, description: 'BLOB_BUCKET' });
    for (const key of tableKeys) {
      // Named as the operator CLI reads them from its environment, e.g. API_KEYS_TABLE.
      new CfnOutput(this, tableEnvironmentName(key).replace(/_/g, ''), {
        value: storage.tables[key].tableName,
        description: tableEnvironmentName(key),
      });
    }
  }
}
