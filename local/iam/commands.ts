import { secretSuffix, stackUuid } from './resolve';

/** One request as IAM authorizes it: an action on one resource ARN, with its context keys. */
export interface IamRequest {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
}

/** Where the SDK call is made: the account, Region and partition its ARNs are built in. */
export interface CallEnvironment {
  account: string;
  region: string;
  partition?: string;
}

export type MappedCommand = { kind: 'mapped'; requests: IamRequest[] } | { kind: 'unmappable'; reason: string };

type Input = Record<string, any>;
type Mapper = (input: Input, arn: Arns) => IamRequest[];

class Unmappable extends Error {}

class Arns {
  readonly partition: string;
  constructor(readonly env: CallEnvironment) {
    this.partition = env.partition ?? 'aws';
  }
  private base(service: string) {
    return `arn:${this.partition}:${service}:${this.env.region}:${this.env.account}`;
  }
  table(name: unknown, index?: unknown): string {
    const table = String(required(name, 'TableName'));
    if (table.startsWith('arn:')) return index ? `${table}/index/${index}` : table;
    return `${this.base('dynamodb')}:table/${table}${index ? `/index/${index}` : ''}`;
  }
  bucket(name: unknown): string {
    return `arn:${this.partition}:s3:::${required(name, 'Bucket')}`;
  }
  object(bucket: unknown, key: unknown): string {
    return `${this.bucket(bucket)}/${required(key, 'Key')}`;
  }
  /** A queue URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`, or a local endpoint's) → the queue ARN in this environment. */
  queue(url: unknown): string {
    const name = String(required(url, 'QueueUrl')).split('/').filter(Boolean).at(-1);
    if (!name) throw new Unmappable(`no queue name in ${String(url)}`);
    return `${this.base('sqs')}:${name}`;
  }
  secret(id: unknown): string {
    const secret = String(required(id, 'SecretId'));
    if (secret.startsWith('arn:')) return secret;
    return `${this.base('secretsmanager')}:secret:${secret}-${secretSuffix}`;
  }
  stack(name: unknown): string {
    if (name === undefined) throw new Unmappable('DescribeStacks without StackName reads every stack: not mapped to one resource');
    const stack = String(name);
    return stack.startsWith('arn:') ? stack : `${this.base('cloudformation')}:stack/${stack}/${stackUuid}`;
  }
  lambda(name: unknown, qualifier?: unknown): string {
    const fn = String(required(name, 'FunctionName'));
    const arn = fn.startsWith('arn:') ? fn : `${this.base('lambda')}:function:${fn}`;
    return qualifier ? `${arn}:${qualifier}` : arn;
  }
  sesIdentity(source: unknown): string {
    const address = String(required(source, 'Source')).replace(/^.*<([^>]+)>.*$/, '$1');
    const domain = address.split('@').at(-1);
    return `${this.base('ses')}:identity/${domain}`;
  }
}

function required(value: unknown, name: string): unknown {
  if (value === undefined || value === null || value === '') throw new Unmappable(`the input has no ${name}`);
  return value;
}

const request = (action: string, resource: string, context: IamRequest['context'] = {}): IamRequest => ({ action, resource, context });

// DynamoDB. The document client's commands (Get, Put, ...) carry the same IAM actions as the low-level ones.
const item = (action: string): Mapper => (input, arn) => [request(`dynamodb:${action}`, arn.table(input.TableName))];
const indexed = (action: string): Mapper => (input, arn) => [request(`dynamodb:${action}`, arn.table(input.TableName, input.IndexName))];
const perTable = (action: string): Mapper => (input, arn) =>
  Object.keys(required(input.RequestItems, 'RequestItems') as object).map((table) => request(`dynamodb:${action}`, arn.table(table)));
const transactWrite: Mapper = (input, arn) =>
  (required(input.TransactItems, 'TransactItems') as Input[]).map((entry) => {
    const [kind, operation] = Object.entries(entry)[0] ?? [];
    const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[String(kind)];
    if (!action) throw new Unmappable(`TransactWriteItems entry ${String(kind)} is not known`);
    return request(`dynamodb:${action}`, arn.table((operation as Input).TableName));
  });
const transactGet: Mapper = (input, arn) =>
  (required(input.TransactItems, 'TransactItems') as Input[]).map((entry) => request('dynamodb:GetItem', arn.table(entry.Get?.TableName)));

const dynamodb: Record<string, Mapper> = {
  GetItem: item('GetItem'),
  Get: item('GetItem'),
  PutItem: item('PutItem'),
  Put: item('PutItem'),
  UpdateItem: item('UpdateItem'),
  Update: item('UpdateItem'),
  DeleteItem: item('DeleteItem'),
  Delete: item('DeleteItem'),
  Query: indexed('Query'),
  Scan: indexed('Scan'),
  BatchGetItem: perTable('BatchGetItem'),
  BatchGet: perTable('BatchGetItem'),
  BatchWriteItem: perTable('BatchWriteItem'),
  BatchWrite: perTable('BatchWriteItem'),
  TransactWriteItems: transactWrite,
  TransactWrite: transactWrite,
  TransactGetItems: transactGet,
  TransactGet: transactGet,
  DescribeTable: item('DescribeTable'),
  CreateTable: item('CreateTable'),
  DeleteTable: item('DeleteTable'),
  UpdateTimeToLive: item('UpdateTimeToLive'),
  ListTables: () => [request('dynamodb:ListTables', '*')],
};

const object = (action: string): Mapper => (input, arn) => [request(`s3:${action}`, arn.object(input.Bucket, input.Key))];
const s3: Record<string, Mapper> = {
  GetObject: object('GetObject'),
  HeadObject: object('GetObject'),
  PutObject: object('PutObject'),
  DeleteObject: object('DeleteObject'),
  CreateMultipartUpload: object('PutObject'),
  UploadPart: object('PutObject'),
  CompleteMultipartUpload: object('PutObject'),
  AbortMultipartUpload: object('AbortMultipartUpload'),
  ListParts: object('ListMultipartUploadParts'),
  DeleteObjects: (input, arn) =>
    ((required(input.Delete?.Objects, 'Delete.Objects') as Input[]) ?? []).map((entry) => request('s3:DeleteObject', arn.object(input.Bucket, entry.Key))),
  CopyObject: (input, arn) => {
    const source = String(required(input.CopySource, 'CopySource')).replace(/^\//, '');
    const [bucket, ...key] = decodeURIComponent(source).split('/');
    return [request('s3:GetObject', arn.object(bucket, key.join('/'))), request('s3:PutObject', arn.object(input.Bucket, input.Key))];
  },
  ListObjectsV2: (input, arn) => [request('s3:ListBucket', arn.bucket(input.Bucket), input.Prefix ? { 's3:prefix': String(input.Prefix) } : {})],
};

const queue = (action: string): Mapper => (input, arn) => [request(`sqs:${action}`, arn.queue(input.QueueUrl))];
const sqs: Record<string, Mapper> = {
  SendMessage: queue('SendMessage'),
  SendMessageBatch: queue('SendMessage'),
  ReceiveMessage: queue('ReceiveMessage'),
  DeleteMessage: queue('DeleteMessage'),
  DeleteMessageBatch: queue('DeleteMessage'),
  ChangeMessageVisibility: queue('ChangeMessageVisibility'),
  ChangeMessageVisibilityBatch: queue('ChangeMessageVisibility'),
  GetQueueAttributes: queue('GetQueueAttributes'),
  PurgeQueue: queue('PurgeQueue'),
  GetQueueUrl: (input, arn) => [request('sqs:GetQueueUrl', arn.queue(`/${String(required(input.QueueName, 'QueueName'))}`))],
};

const secret = (action: string): Mapper => (input, arn) => [request(`secretsmanager:${action}`, arn.secret(input.SecretId))];
const secretsManager: Record<string, Mapper> = {
  GetSecretValue: secret('GetSecretValue'),
  DescribeSecret: secret('DescribeSecret'),
};

/** SES receipt rule sets have no resource type in IAM: these actions are authorized on `*`. */
const sesAccountWide = (action: string): Mapper => () => [request(`ses:${action}`, '*')];
const ses: Record<string, Mapper> = {
  DescribeActiveReceiptRuleSet: sesAccountWide('DescribeActiveReceiptRuleSet'),
  CreateReceiptRuleSet: sesAccountWide('CreateReceiptRuleSet'),
  SetActiveReceiptRuleSet: sesAccountWide('SetActiveReceiptRuleSet'),
  DescribeReceiptRuleSet: sesAccountWide('DescribeReceiptRuleSet'),
  SendEmail: (input, arn) => [request('ses:SendEmail', arn.sesIdentity(input.Source))],
  SendRawEmail: (input, arn) => [request('ses:SendRawEmail', arn.sesIdentity(input.Source))],
};

const cloudformation: Record<string, Mapper> = {
  DescribeStacks: (input, arn) => [request('cloudformation:DescribeStacks', arn.stack(input.StackName))],
};

const lambda: Record<string, Mapper> = {
  Invoke: (input, arn) => [request('lambda:InvokeFunction', arn.lambda(input.FunctionName, input.Qualifier))],
  InvokeWithResponseStream: (input, arn) => [request('lambda:InvokeFunction', arn.lambda(input.FunctionName, input.Qualifier))],
};

/** Keyed by the SDK v3 client's service id (`client.config.serviceId`). */
const services: Record<string, Record<string, Mapper>> = {
  DynamoDB: dynamodb,
  S3: s3,
  SQS: sqs,
  'Secrets Manager': secretsManager,
  SES: ses,
  CloudFormation: cloudformation,
  Lambda: lambda,
};

/**
 * The IAM requests an SDK v3 command makes: its action(s) and resource ARN(s) in the given
 * environment. A command this table does not know, or an input it cannot place, is unmappable:
 * the caller must treat that as a failure, never as allowed.
 */
export function callFromCommand(serviceId: string, commandName: string, input: Input, env: CallEnvironment): MappedCommand {
  const command = commandName.replace(/Command$/, '');
  const mapper = services[serviceId]?.[command];
  if (!mapper) return { kind: 'unmappable', reason: `no IAM mapping for ${serviceId} ${command}` };
  try {
    const requests = mapper(input ?? {}, new Arns(env));
    if (requests.length === 0) return { kind: 'unmappable', reason: `${serviceId} ${command} names no resource` };
    return { kind: 'mapped', requests };
  } catch (error) {
    if (error instanceof Unmappable) return { kind: 'unmappable', reason: `${serviceId} ${command}: ${error.message}` };
    throw error;
  }
}
