import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { AttributeType, Billing, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  tableDefinitions,
  tableKeys,
  type TableDefinition,
  type TableKey,
  type TableNames,
} from '../lambdas/adapters/dynamodb/table-definitions';

/**
 * The service's DynamoDB tables, made from the same definitions the local runtime uses: on
 * demand, point-in-time recovery, encrypted, kept when the stack is deleted.
 */
export class Storage extends Construct {
  readonly tables: Readonly<Record<TableKey, TableV2>>;
  /** Raw sources, attachments and large bodies: private, encrypted, TLS only. */
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const tables = {} as Record<TableKey, TableV2>;
    for (const key of tableKeys) {
      const definition: TableDefinition = tableDefinitions[key];
      tables[key] = new TableV2(this, `${key}Table`, {
        partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
        ...(definition.sortKey ? { sortKey: { name: definition.sortKey, type: AttributeType.STRING } } : {}),
        ...(definition.ttlAttribute ? { timeToLiveAttribute: definition.ttlAttribute } : {}),
        billing: Billing.onDemand(),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryptionV2.awsManagedKey(),
        removalPolicy: RemovalPolicy.RETAIN,
        globalSecondaryIndexes: (definition.indexes ?? []).map((index) => ({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
          sortKey: { name: index.sortKey, type: AttributeType.STRING },
        })),
      });
    }
    this.tables = tables;
    this.bucket = new Bucket(this, 'MailBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // A backstop only: the sweeper deletes expired mail within minutes.
      lifecycleRules: [{ expiration: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** The physical table names, as the functions' environment and the operator CLI need them. */
  get tableNames(): TableNames {
    return Object.fromEntries(tableKeys.map((key) => [key, this.tables[key].tableName])) as TableNames;
  }
}
