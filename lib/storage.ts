import { Duration, RemovalPolicy, Stack, Tags, Validations, type CfnElement, type CfnResource } from 'aws-cdk-lib';
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { AttributeType, Billing, ProjectionType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct, type IConstruct } from 'constructs';
import {
  tableDefinitions,
  tableKeys,
  type TableDefinition,
  type TableKey,
  type TableNames,
} from '../lambdas/adapters/dynamodb/table-definitions';
import { frameworkLogGroup } from './service-function';

/** The construct id aws-cdk-lib gives the stack's provider of `autoDeleteObjects`. */
const autoDeleteProviderId = 'Custom::S3AutoDeleteObjectsCustomResourceProvider';

/**
 * The tag of the stores of private mail (the messages table, the mail bucket): an AWS Backup plan
 * excludes them with the condition `StringNotEquals aws:ResourceTag/backup = exclude`
 * (docs/deploying-to-aws.md, step 7), or a backup would keep mail past its 15 minutes.
 */
export const backupExclusionTag = { key: 'backup', value: 'exclude' } as const;

/** Every table but the messages table can be restored to a point in time. */
export function keepsRecovery(key: TableKey): boolean {
  return key !== 'messages';
}

/**
 * What `cdk destroy` does with a table: the messages table holds private mail that must be gone
 * 15 minutes after it arrived, and the sweeper that would delete it goes with the stack, so it
 * goes too; accounts, keys, identities, addresses and the rest are kept.
 */
export function tableRemovalPolicy(key: TableKey): RemovalPolicy {
  return key === 'messages' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
}

/**
 * The service's DynamoDB tables, made from the same definitions the local runtime uses: on
 * demand, encrypted, kept when the stack is deleted (but the messages table, and the mail bucket
 * emptied first: private mail does not outlive the stack and its sweeper), with point-in-time recovery on every table
 * but the messages table (contract: messages and their private content expire 15 minutes after
 * receipt; a restore would bring back deleted messages for up to 35 days).
 */
export class Storage extends Construct {
  private readonly stack = Stack.of(this);
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
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: keepsRecovery(key) },
        encryption: TableEncryptionV2.awsManagedKey(),
        removalPolicy: tableRemovalPolicy(key),
        globalSecondaryIndexes: (definition.indexes ?? []).map((index) => ({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
          sortKey: { name: index.sortKey, type: AttributeType.STRING },
          ...(index.include.length > 0
            ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.include] }
            : { projectionType: ProjectionType.KEYS_ONLY }),
        })),
      });
    }
    this.tables = tables;
    this.bucket = new Bucket(this, 'MailBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // A backstop only: the sweeper deletes expired mail within minutes.
      lifecycleRules: [{ expiration: Duration.days(1), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // Emptied (by a CDK custom resource) and deleted with the stack: without the sweeper nothing
      // else would delete the mail left in it before the lifecycle rule, a day later.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    this.logEmptying();
    for (const store of [this.tables.messages, this.bucket]) Tags.of(store).add(backupExclusionTag.key, backupExclusionTag.value);
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'The bucket holds only mail that expires in 15 minutes; access logs would keep its keys far longer.',
    });
  }

  /**
   * The CDK function that empties the bucket before it is deleted (one per stack, shared by every
   * bucket that asks for it) logs to a group that keeps its logs as long as every other function's,
   * instead of one it would create on first run and keep forever.
   */
  private logEmptying(): void {
    const [handler] = this.emptyingResources();
    handler.addPropertyOverride('LoggingConfig.LogGroup', frameworkLogGroup(this, 'EmptyingLogs').logGroupName);
  }

  /** The emptying function and its role are plain CloudFormation resources, which `Tags.of` passes by: tagged here. */
  tagEmptying(tags: Record<string, string>): void {
    const list = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
    for (const resource of this.emptyingResources()) resource.addPropertyOverride('Tags', list);
  }

  private emptyingResources(): [handler: CfnResource, role: CfnResource] {
    const provider = this.stack.node.tryFindChild(autoDeleteProviderId);
    const handler = provider?.node.tryFindChild('Handler') as CfnResource | undefined;
    const role = provider?.node.tryFindChild('Role') as CfnResource | undefined;
    if (!handler || !role) throw new Error(`the bucket's emptying function (${autoDeleteProviderId}) was not found: has aws-cdk-lib renamed it?`);
    return [handler, role];
  }

  /**
   * Object access to the blob bucket by key prefix, with the exact S3 actions needed: reading,
   * writing (multipart included), deleting, listing. Keys under a prefix are generated ids, so a
   * prefix wildcard is the narrowest resource there is. A reader may also list what it reads: S3
   * answers a read of a missing key 404 `NoSuchKey` only to a caller allowed `s3:ListBucket` for
   * that key as prefix, and 403 `AccessDenied` to any other, so a read at the instant a message is
   * swept would otherwise answer 500 instead of the contract's 404.
   */
  grantBlobs(grantee: IGrantable & IConstruct, access: { read?: string[]; write?: string[]; delete?: string[]; list?: string[] }): void {
    const principal = grantee.grantPrincipal;
    const objects = (prefixes: string[] = []) => prefixes.map((prefix) => this.bucket.arnForObjects(`${prefix}*`));
    const statements: [string[], string[]][] = [
      [['s3:GetObject'], objects(access.read)],
      [['s3:PutObject', 's3:AbortMultipartUpload'], objects(access.write)],
      [['s3:DeleteObject'], objects(access.delete)],
    ];
    for (const [actions, resources] of statements) {
      if (resources.length > 0) principal.addToPrincipalPolicy(new PolicyStatement({ actions, resources }));
    }
    const listed = [...new Set([...(access.read ?? []), ...(access.list ?? [])])];
    if (listed.length > 0) {
      principal.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [this.bucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': listed.map((prefix) => `${prefix}*`) } },
        }),
      );
    }
    const prefixes = new Set([...(access.read ?? []), ...(access.write ?? []), ...(access.delete ?? [])]);
    Validations.of(grantee).acknowledge(
      ...[...prefixes].map((prefix) => ({
        id: `AwsSolutions-IAM5[Resource::<${this.stack.getLogicalId(this.bucket.node.defaultChild as CfnBucket)}.Arn>/${prefix}*]`,
        reason: `Objects under ${prefix} have generated keys; the prefix is the narrowest resource.`,
      })),
    );
  }

  /**
   * Item actions on one table, exactly those the grantee's code sends (`GetItem`, `Query`...): no
   * `grantReadWriteData` that also allows scans, batch writes and deletes nobody makes. A table
   * with secondary indexes is granted its own indexes too, acknowledged as such.
   */
  grantItems(grantee: IGrantable & IConstruct, table: TableKey, ...actions: string[]): void {
    this.tables[table].grant(grantee, ...actions.map((action) => `dynamodb:${action}`));
    const definition: TableDefinition = tableDefinitions[table];
    if (definition.indexes?.length) this.acknowledgeIndexAccess(grantee, table);
  }

  /**
   * Acknowledges the index wildcard of a table's read grant: it covers that table's own indexes
   * (the messages table's by_email and by_expiry), nothing else.
   */
  acknowledgeIndexAccess(grantee: IConstruct, table: TableKey): void {
    const logicalId = this.stack.getLogicalId(this.tables[table].node.defaultChild as CfnElement);
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/index/*]`,
      reason: `Queries the ${table} table's own secondary indexes.`,
    });
  }

  /** The physical table names, as the functions' environment and the operator CLI need them. */
  get tableNames(): TableNames {
    return Object.fromEntries(tableKeys.map((key) => [key, this.tables[key].tableName])) as TableNames;
  }
}
