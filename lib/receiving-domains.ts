import { Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { CnameRecord, HostedZone, MxRecord } from 'aws-cdk-lib/aws-route53';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { frameworkLogGroup } from './service-function';

export interface ReceivingDomainsProps {
  /** The receiving domains, each once, in canonical form (`receivingDomainNames`). */
  domains: string[];
  /** The domains table, seeded with each domain so that addresses can be created at once. */
  domainsTable: ITableV2;
  /** A Route 53 zone holding the domains: when given, identities, DKIM and MX records are written there. */
  hostedZone?: { zoneId: string; zoneName: string };
}

/**
 * What a receiving domain needs besides the receipt rule: its row in the domains table (created
 * if absent, never overwritten, so an operator's `domain disable` survives a redeploy) and, when
 * the deployer gives the zone, its SES identity verified by Easy DKIM records and its MX record
 * pointing at the Region's inbound SMTP endpoint.
 */
export class ReceivingDomains extends Construct {
  constructor(scope: Construct, id: string, props: ReceivingDomainsProps) {
    super(scope, id);
    // Every resource of a domain is named by the domain, never by its place in the list: reordering
    // or removing a domain leaves the others' resources as they are.
    // One function serves every seed (a singleton): its one log group.
    const seedLogs = frameworkLogGroup(this, 'SeedLogs');
    for (const domain of props.domains) {
      const seed = {
        service: 'DynamoDB',
        action: 'putItem',
        parameters: {
          TableName: props.domainsTable.tableName,
          Item: { domain: { S: domain }, create_enabled: { BOOL: true }, receive_enabled: { BOOL: true } },
          ConditionExpression: 'attribute_not_exists(#domain)',
          ExpressionAttributeNames: { '#domain': 'domain' },
        },
        physicalResourceId: PhysicalResourceId.of(`domain:${domain}`),
        ignoreErrorCodesMatching: 'ConditionalCheckFailedException',
      };
      // Seeded on update too (a new domains table, a changed row): never overwriting a row that exists.
      new AwsCustomResource(this, `Seed ${domain}`, {
        onCreate: seed,
        onUpdate: seed,
        policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: [props.domainsTable.tableArn] }),
        installLatestAwsSdk: false,
        logGroup: seedLogs,
      });
    }
    if (!props.hostedZone) return;

    const zoneName = props.hostedZone.zoneName.replace(/\.$/, '').toLowerCase();
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', {
      hostedZoneId: props.hostedZone.zoneId,
      zoneName,
    });
    for (const domain of props.domains) {
      if (domain !== zoneName && !domain.endsWith(`.${zoneName}`)) {
        throw new Error(`The receiving domain ${domain} is not inside the hosted zone ${zoneName}.`);
      }
      const identity = new EmailIdentity(this, `Identity ${domain}`, { identity: Identity.domain(domain) });
      identity.dkimRecords.forEach((record, recordIndex) => {
        new CnameRecord(this, `Dkim ${domain} ${recordIndex}`, {
          zone,
          // The token names are already fully qualified; the trailing dot keeps the zone from being appended.
          recordName: `${record.name}.`,
          domainName: record.value,
        });
      });
      new MxRecord(this, `Mx ${domain}`, {
        zone,
        recordName: `${domain}.`,
        values: [{ priority: 10, hostName: `inbound-smtp.${Stack.of(this).region}.amazonaws.com` }],
      });
    }
  }
}
