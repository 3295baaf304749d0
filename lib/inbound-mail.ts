import { join } from 'node:path';
import { CustomResource, Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import {
  ReceiptRule,
  ReceiptRuleSet,
  TlsPolicy,
  type IReceiptRuleAction,
  type IReceiptRuleSet,
  type ReceiptRuleActionConfig,
} from 'aws-cdk-lib/aws-ses';
import { Lambda, LambdaInvocationType, Stop } from 'aws-cdk-lib/aws-ses-actions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct, type IConstruct } from 'constructs';
import { sesRawPrefix } from '../lambdas/inbound/ses-events';
import { recipientFilterFunction, parserFunction } from '../lambdas/function-manifest';
import { grantAccess } from './grant-access';
import { declaredCode, frameworkLogGroup, ServiceFunction } from './service-function';
import type { Storage } from './storage';

export interface InboundMailProps {
  storage: Storage;
  environment: Record<string, string>;
  /** The stage: it names this stack's receipt rule, unique in the Region's rule set. */
  stage: string;
  /** The receiving domains, as the SES rule's recipients. */
  domains: string[];
  /**
   * An existing receipt rule set to add this stage's rule to (typically the Region's active one,
   * which the deployer manages). When absent, the Region's active set is adopted, or the shared
   * set `tempmail-shared` is created and activated when none is active.
   */
  receiptRuleSetName?: string;
  /** Concurrent executions reserved for the parser (default 10); 0 reserves none. */
  parserReservedConcurrency?: number;
  /**
   * The rule of the set this stage's rule follows; by default it is placed first, before any
   * other application's rule could store mail for the service's domains.
   */
  receiptRuleAfter?: string;
}

/**
 * Lambda keeps the parser's failed events here. A mail is only worth redriving within its 15
 * minutes (after that it would be expired at once), and the event carries header fields
 * (From, Subject), so it is kept 15 minutes and no longer: a redrive of an older event would
 * only drop expired mail, and the headers must not outlive the message they belong to.
 */
export const deadLetterRetention = Duration.minutes(15);

/**
 * SES receiving (DESIGN: inbound mail): this stage's receipt rule, whose first action is a
 * RequestResponse recipient filter that stops the rule set unless an envelope recipient is active
 * (or the virus scan failed), then the S3 action that stores the raw message, then the parser as
 * an Event action with a dead-letter queue, and last a stop action, so that no later rule sees
 * the mail. The rule lives in the Region's one active rule set, shared by every stage and maybe
 * by other applications; the stack never activates another set over it nor deactivates it.
 */
export class InboundMail extends Construct {
  readonly filterFunction: ServiceFunction;
  readonly parserFunction: ServiceFunction;
  readonly deadLetterQueue: Queue;
  readonly receiptRule: ReceiptRule;

  constructor(scope: Construct, id: string, props: InboundMailProps) {
    super(scope, id);
    const { bucket } = props.storage;

    this.filterFunction = new ServiceFunction(this, 'RecipientFilter', {
      ...declaredCode(recipientFilterFunction),
      environment: props.environment,
      description: 'Stops the SES rule set unless a recipient is an active address',
      timeout: Duration.seconds(10),
    });
    grantAccess(this.filterFunction, recipientFilterFunction.access, props);

    this.deadLetterQueue = new Queue(this, 'ParserDeadLetters', {
      retentionPeriod: deadLetterRetention,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    // None reserved by default: a new account's concurrency limit (often 10) cannot reserve any,
    // since Lambda keeps 100 unreserved (docs/deploying-to-aws.md, step 0).
    const reserved = props.parserReservedConcurrency ?? 0;
    this.parserFunction = new ServiceFunction(this, 'Parser', {
      ...declaredCode(parserFunction),
      environment: props.environment,
      description: 'Parses a received mail into one message per active recipient',
      timeout: Duration.minutes(2),
      memorySize: 1024,
      options: {
        deadLetterQueue: this.deadLetterQueue,
        retryAttempts: 2,
        // A mail lives 15 minutes: an event queued longer would only write expired messages.
        maxEventAge: Duration.minutes(15),
        // A burst of inbound mail waits in Lambda's event queue instead of taking the API's concurrency.
        ...(reserved > 0 ? { reservedConcurrentExecutions: reserved } : {}),
      },
    });
    grantAccess(this.parserFunction, parserFunction.access, props);

    const ruleSet = props.receiptRuleSetName
      ? ReceiptRuleSet.fromReceiptRuleSetName(this, 'RuleSet', props.receiptRuleSetName)
      : this.regionRuleSet();
    const receiptRuleName = `tempmail-${props.stage}`;
    // SES may invoke the two functions only from this stage's rule of this account (the Lambda
    // actions would otherwise add a permission naming the account alone, any rule of it).
    const stack = Stack.of(this);
    const thisRule = stack.formatArn({
      service: 'ses',
      resource: 'receipt-rule-set',
      resourceName: `${ruleSet.receiptRuleSetName}:receipt-rule/${receiptRuleName}`,
    });
    for (const fn of [this.filterFunction, this.parserFunction]) {
      fn.addPermission('AllowSes', { principal: new ServicePrincipal('ses.amazonaws.com'), sourceAccount: stack.account, sourceArn: thisRule });
    }
    this.receiptRule = new ReceiptRule(this, 'Rule', {
      ruleSet,
      receiptRuleName,
      // Placed on purpose: first in the set unless the deployer names the rule it follows.
      ...(props.receiptRuleAfter ? { after: ReceiptRule.fromReceiptRuleName(this, 'After', props.receiptRuleAfter) } : {}),
      recipients: props.domains,
      scanEnabled: true,
      tlsPolicy: TlsPolicy.OPTIONAL,
      actions: [
        new Lambda({ function: this.filterFunction, invocationType: LambdaInvocationType.REQUEST_RESPONSE }),
        new StoreRawMail(bucket, receiptRuleName),
        new Lambda({ function: this.parserFunction, invocationType: LambdaInvocationType.EVENT }),
        // No later rule of a shared set (another application's catch-all) may store this mail beyond its 15 minutes.
        new Stop(),
      ],
    });
  }

  /** The Region's active rule set, adopted, or the shared one, created and activated when none is active. */
  private regionRuleSet(): IReceiptRuleSet {
    const onEvent = new ServiceFunction(this, 'RuleSetFunction', {
      entry: join(__dirname, '..', 'lambdas', 'deployment', 'shared-receipt-rule-set.ts'),
      environment: {},
      description: 'Finds the active SES receipt rule set, or creates and activates the shared one when none is',
      timeout: Duration.seconds(30),
    });
    onEvent.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:DescribeActiveReceiptRuleSet', 'ses:CreateReceiptRuleSet', 'ses:SetActiveReceiptRuleSet'],
        resources: ['*'],
      }),
    );
    acknowledge(onEvent, {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'The SES receipt rule set actions support no resource-level permissions.',
    });
    const provider = new Provider(this, 'RuleSetProvider', { onEventHandler: onEvent, logGroup: frameworkLogGroup(this, 'RuleSetProviderLogs') });
    acknowledge(provider, {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The custom-resource framework function writes only its own logs.',
    });
    acknowledge(provider, {
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(onEvent.node.defaultChild as never)}.Arn>:*]`,
      reason: 'The framework invokes the one rule-set function, any version of it.',
    });
    const resource = new CustomResource(this, 'ActiveRuleSet', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::ActiveReceiptRuleSet',
    });
    return ReceiptRuleSet.fromReceiptRuleSetName(this, 'RegionRuleSet', resource.getAttString('RuleSetName'));
  }
}

function acknowledge(scope: IConstruct, acknowledgement: { id: string; reason: string }): void {
  Validations.of(scope).acknowledge(acknowledgement);
}

/**
 * The S3 action, with a bucket policy that lets SES write raw mail only under `inbound/`, only
 * for this account and only from this stage's rule (`aws:SourceArn`), not any rule of the account.
 */
class StoreRawMail implements IReceiptRuleAction {
  constructor(
    private readonly bucket: IBucket,
    private readonly ruleName: string,
  ) {}

  bind(rule: IConstruct): ReceiptRuleActionConfig {
    const stack = Stack.of(rule);
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        principals: [new ServicePrincipal('ses.amazonaws.com')],
        resources: [this.bucket.arnForObjects(`${sesRawPrefix}*`)],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'ses',
              resource: 'receipt-rule-set',
              resourceName: `*:receipt-rule/${this.ruleName}`,
            }),
          },
        },
      }),
    );
    // SES checks its write permission when the rule is created.
    const policy = this.bucket.node.tryFindChild('Policy');
    if (policy) rule.node.addDependency(policy);
    return { s3Action: { bucketName: this.bucket.bucketName, objectKeyPrefix: sesRawPrefix } };
  }
}
