import { join } from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import { MxRecord, HostedZone } from 'aws-cdk-lib/aws-route53';
import { ReceiptRuleSet, TlsPolicy } from 'aws-cdk-lib/aws-ses';
import { Lambda, LambdaInvocationType, S3 } from 'aws-cdk-lib/aws-ses-actions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { sesRawPrefix } from '../lambdas/inbound/ses-events';
import { ServiceFunction } from './service-function';
import type { Storage } from './storage';

export interface InboundMailProps {
  storage: Storage;
  environment: Record<string, string>;
  /** The receiving domains, as the SES rule's recipients. */
  domains: string[];
  /** A Route 53 zone to write the MX records into, when the deployer gives one. */
  hostedZone?: { zoneId: string; zoneName: string };
}

const inboundRoot = join(__dirname, '..', 'lambdas', 'inbound');

/**
 * SES receiving (DESIGN: inbound mail): a receipt rule whose first action is a RequestResponse
 * recipient filter that stops the rule set unless an envelope recipient is active, then the S3
 * action that stores the raw message, then the parser as an Event action with a dead-letter
 * queue. The rule set is made active by a custom resource, since CloudFormation cannot.
 */
export class InboundMail extends Construct {
  readonly filterFunction: ServiceFunction;
  readonly parserFunction: ServiceFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: InboundMailProps) {
    super(scope, id);
    const { tables, bucket } = props.storage;

    this.filterFunction = new ServiceFunction(this, 'RecipientFilter', {
      entry: join(inboundRoot, 'recipient-filter.ts'),
      environment: props.environment,
      description: 'Stops the SES rule set unless a recipient is an active address',
      timeout: Duration.seconds(10),
    });
    for (const table of [tables.domains, tables.addresses, tables.emails]) table.grantReadData(this.filterFunction);
    props.storage.acknowledgeIndexAccess(this.filterFunction, 'emails');

    this.deadLetterQueue = new Queue(this, 'ParserDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter queue of the parser.',
    });
    this.parserFunction = new ServiceFunction(this, 'Parser', {
      entry: join(inboundRoot, 'ses-parser.ts'),
      environment: props.environment,
      description: 'Parses a received mail into one message per active recipient',
      timeout: Duration.minutes(2),
      memorySize: 1024,
      options: { deadLetterQueue: this.deadLetterQueue, retryAttempts: 2 },
    });
    for (const table of [tables.domains, tables.addresses, tables.emails]) table.grantReadData(this.parserFunction);
    props.storage.acknowledgeIndexAccess(this.parserFunction, 'emails');
    tables.messages.grantWriteData(this.parserFunction);
    props.storage.acknowledgeIndexAccess(this.parserFunction, 'messages');
    props.storage.grantBlobs(this.parserFunction, { read: [sesRawPrefix], write: ['mail/'] });

    const ruleSet = new ReceiptRuleSet(this, 'RuleSet', {
      rules: [
        {
          recipients: props.domains,
          scanEnabled: true,
          tlsPolicy: TlsPolicy.OPTIONAL,
          actions: [
            new Lambda({ function: this.filterFunction, invocationType: LambdaInvocationType.REQUEST_RESPONSE }),
            new S3({ bucket, objectKeyPrefix: sesRawPrefix }),
            new Lambda({ function: this.parserFunction, invocationType: LambdaInvocationType.EVENT }),
          ],
        },
      ],
    });
    const activation = new AwsCustomResource(this, 'ActivateRuleSet', {
      onUpdate: {
        service: 'SES',
        action: 'setActiveReceiptRuleSet',
        parameters: { RuleSetName: ruleSet.receiptRuleSetName },
        physicalResourceId: PhysicalResourceId.of(ruleSet.receiptRuleSetName),
      },
      onDelete: { service: 'SES', action: 'setActiveReceiptRuleSet', parameters: {} },
      policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: AwsCustomResourcePolicy.ANY_RESOURCE }),
      installLatestAwsSdk: false,
    });
    Validations.of(activation).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ses:SetActiveReceiptRuleSet supports no resource-level permissions.',
    });

    if (props.hostedZone) {
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
        hostedZoneId: props.hostedZone.zoneId,
        zoneName: props.hostedZone.zoneName,
      });
      props.domains.forEach((domain, index) => {
        new MxRecord(this, `Mx${index}`, {
          zone,
          recordName: domain,
          values: [{ priority: 10, hostName: `inbound-smtp.${zone.stack.region}.amazonaws.com` }],
        });
      });
    }
  }
}
