import { Aws, CfnOutput, CfnRule, Fn, Stack, Tags, Token, Validations, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { tableEnvironmentName, tableKeys } from '../lambdas/adapters/dynamodb/table-definitions';
import { Api } from './api';
import { ConsoleHosting } from './console-hosting';
import { ConsoleIdentity } from './console-identity';
import { assertReceivingRegion, assertStageName, assertSupportContact, receivingDomainNames, sesReceivingRegions } from './deployment-guards';
import { InboundMail } from './inbound-mail';
import { Monitoring } from './monitoring';
import { ReceivingDomains } from './receiving-domains';
import { functionEnvironmentNames } from '../lambdas/composition/function-environment';
import { serviceEnvironment, type Lifetimes } from './service-environment';
import { Storage } from './storage';
import { Sweeper } from './sweeper';
import { IpRateLimit } from './web-acl';

/** The value of the `service` tag every resource of the stack carries (with `stage`). */
export const serviceTag = 'tempmail';

/** Requests a minute one client IP may make by default: 50 a second, above any one honest test run. */
export const defaultIpRateLimit = 3_000;

export interface TempmailStackProps extends StackProps {
  /** Stage name, `[a-z0-9-]{1,16}`; API keys are bound to it, so a staging key never authenticates here. */
  stage: string;
  /** Receiving domains: hostnames, at least one, each once in any spelling; the stack uses them lowercased (`receivingDomainNames`). */
  domains: string[];
  /** A Route 53 zone holding the receiving domains: SES identities, DKIM and MX records are written there. */
  hostedZone?: { zoneId: string; zoneName: string };
  /** Where alarms are mailed, when given. */
  alarmEmail?: string;
  /** An existing SES receipt rule set to add this stage's rule to; by default the Region's active one. */
  receiptRuleSetName?: string;
  /** A regional WAF web ACL for the API stage. */
  webAclArn?: string;
  /** A custom domain name for the API (a regional ACM certificate in the stack's Region). */
  apiDomain?: { domainName: string; certificateArn: string };
  /**
   * Requests one client IP may make a minute before the stack's own WAF web ACL answers 429
   * (default 3,000; 0 creates no web ACL). Ignored when `webAclArn` names the deployer's own.
   */
  ipRateLimit?: number;
  /**
   * A domain whose SES identity is verified in this Region (a receiving domain once its DKIM
   * records verified): the console's sign-up mail is then sent through SES from it.
   */
  consoleSenderDomain?: string;
  /**
   * Whom the console names when a customer's allowance runs low or out (an email address or a
   * page, at most 200 characters), published in its `config.json`; without it the console says to
   * ask whoever gave access.
   */
  supportContact?: string;
  /** The API stage's throttle: requests a second per method and burst (default 5,000 each). */
  apiThrottle?: { rate?: number; burst?: number };
  /** The receipt rule this stage's rule follows in the shared rule set; by default it goes first. */
  receiptRuleAfter?: string;
  /** Minutes without any mail for this stage before an alarm (default 1,440, a day; 0: no alarm). */
  mailSilenceMinutes?: number;
  /** Concurrency reserved for the mail parser (default 0: none, so a new account with a limit of 10 deploys). */
  parserReservedConcurrency?: number;
  /** Message and reservation lifetimes other than the contract's, for a stack run on one machine; unset in a deployment. */
  lifetimes?: Lifetimes;
}

/** The whole service in one stack: storage, the API, inbound mail, the sweeper and alarms. */
export class TempmailStack extends Stack {
  constructor(scope: Construct, id: string, props: TempmailStackProps) {
    // Before the stack: the stage also names it, and a name CloudFormation refuses would hide why.
    assertStageName(props.stage);
    if (props.supportContact !== undefined) assertSupportContact(props.supportContact);
    const domains = receivingDomainNames(props.domains);
    super(scope, id, props);
    assertReceivingRegion(this.region);
    if (Token.isUnresolved(this.region)) {
      // Env-agnostic synthesis cannot know the Region: CloudFormation checks it before creating anything.
      new CfnRule(this, 'ReceivingRegion', {
        assertions: [
          {
            assert: Fn.conditionContains([...sesReceivingRegions], this.region),
            assertDescription: `SES receives mail only in ${sesReceivingRegions.join(', ')}`,
          },
        ],
      });
    }

    // Every resource says what it belongs to: cost allocation, and finding a stage's resources.
    const tags = { service: serviceTag, stage: props.stage };
    for (const [key, value] of Object.entries(tags)) Tags.of(this).add(key, value);

    const storage = new Storage(this, 'Storage');
    storage.tagEmptying(tags);
    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: 'HMAC secret of list cursors',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    Validations.of(cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the cursor HMAC secret only invalidates outstanding cursors (valid one hour); a new value is read at the next cold start.',
    });
    const environment = serviceEnvironment({ storage, stage: props.stage, domains, ...(props.lifetimes ? { lifetimes: props.lifetimes } : {}) });

    // The console: the user pool first (the API's console authorizer needs it), then the hosting
    // (its address is where sign-in returns), then the client, whose id the console functions learn.
    const identity = new ConsoleIdentity(this, 'ConsoleIdentity', { stage: props.stage, senderDomain: props.consoleSenderDomain });
    const ipRateLimit = props.ipRateLimit ?? defaultIpRateLimit;
    const ownAcl = !props.webAclArn && ipRateLimit > 0 ? new IpRateLimit(this, 'IpRateLimit', { limit: ipRateLimit }) : undefined;
    // The same per-IP rule guards the console's sign-up and sign-in (Cognito's threat protection needs the Plus plan).
    ownAcl?.protect('UserPool', identity.userPool.userPoolArn);
    const api = new Api(this, 'Api', {
      storage,
      stage: props.stage,
      environment,
      cursorSecret,
      userPool: identity.userPool,
      issuer: identity.issuer,
      webAclArn: props.webAclArn ?? ownAcl?.webAclArn,
      throttle: props.apiThrottle,
      customDomain: props.apiDomain ? { ...props.apiDomain, hostedZone: props.hostedZone } : undefined,
    });
    const hosting = new ConsoleHosting(this, 'Console', {
      restApi: api.restApi,
      stage: props.stage,
      issuerOrigins: [`https://cognito-idp.${Aws.REGION}.${Aws.URL_SUFFIX}`, identity.domain.baseUrl()],
    });
    const client = identity.addConsoleClient(hosting.consoleUrl);
    for (const fn of api.consoleFunctions) fn.addEnvironment(functionEnvironmentNames.oidcClientId, client.userPoolClientId);
    // Cognito's discovery names no end-session endpoint: the console signs out at the domain's /logout.
    hosting.deploy({
      issuer: identity.issuer,
      clientId: client.userPoolClientId,
      logoutEndpoint: `${identity.domain.baseUrl()}/logout`,
      ...(props.supportContact !== undefined ? { support: props.supportContact } : {}),
    });
    const inbound = new InboundMail(this, 'InboundMail', {
      storage,
      environment,
      stage: props.stage,
      domains,
      receiptRuleSetName: props.receiptRuleSetName,
      receiptRuleAfter: props.receiptRuleAfter,
      parserReservedConcurrency: props.parserReservedConcurrency,
    });
    new ReceivingDomains(this, 'ReceivingDomains', {
      domains,
      domainsTable: storage.tables.domains,
      hostedZone: props.hostedZone,
    });
    const sweeper = new Sweeper(this, 'Sweeper', { storage, environment });
    new Monitoring(this, 'Monitoring', {
      restApi: api.restApi,
      accessLogs: api.accessLogs,
      stage: props.stage,
      authorizer: api.authorizerFunction,
      routes: api.routeFunctions,
      recipientFilter: inbound.filterFunction,
      parser: inbound.parserFunction,
      sweeper: sweeper.sweeperFunction,
      deadLetterQueue: inbound.deadLetterQueue,
      tables: storage.tables,
      alarmEmail: props.alarmEmail,
      mailSilenceMinutes: props.mailSilenceMinutes,
    });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The CDK custom-resource provider (seeding the domains table) writes only its own logs.',
    });

    new CfnOutput(this, 'ApiUrl', { value: api.restApi.url });
    new CfnOutput(this, 'Stage', { value: props.stage, description: functionEnvironmentNames.stage });
    // The operator CLI's `domain add` refuses a domain outside them (SES would refuse its mail).
    new CfnOutput(this, 'ReceiptRuleDomains', { value: domains.join(','), description: functionEnvironmentNames.receiptRuleDomains });
    new CfnOutput(this, 'ConsoleUrl', { value: hosting.consoleUrl });
    new CfnOutput(this, 'ApiReferenceUrl', { value: hosting.referenceUrl });
    new CfnOutput(this, 'ConsoleIssuer', { value: identity.issuer });
    new CfnOutput(this, 'ConsoleClientId', { value: client.userPoolClientId });
    new CfnOutput(this, 'MailBucket', { value: storage.bucket.bucketName, description: functionEnvironmentNames.blobBucket });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: inbound.deadLetterQueue.queueUrl, description: 'DEAD_LETTER_QUEUE_URL' });
    for (const key of tableKeys) {
      // Named as the operator CLI reads them from its environment, e.g. API_KEYS_TABLE.
      new CfnOutput(this, tableEnvironmentName(key).replace(/_/g, ''), {
        value: storage.tables[key].tableName,
        description: tableEnvironmentName(key),
      });
    }
  }
}
