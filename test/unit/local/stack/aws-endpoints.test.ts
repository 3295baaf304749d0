import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, ListTagsOfResourceCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteObjectsCommand, GetBucketAclCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendEmailCommand, SESClient } from '@aws-sdk/client-ses';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DirectoryBlobStore } from '../../../../lambdas/adapters/blobs/directory-blob-store';
import { S3BlobStore } from '../../../../lambdas/adapters/blobs/s3-blob-store';
import { BlobsNotDeleted } from '../../../../lambdas/core/errors';
import { loadFunctionRoles, TemplateResolver, type Template } from '../../../../local/iam';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../../local/local-dynamodb';
import { startFunctionEndpoint, type EvaluatedCall, type FunctionEndpoint } from '../../../../local/stack/aws-endpoints';
import { s3StandIn } from '../../../../local/stack/s3-stand-in';
import { startQueues, type StackQueues } from '../../../../local/stack/sqs-queues';
import { localNaming, resourcePolicies, stackQueues, type StackFunction } from '../../../../local/stack/template';
import { memoryLogger } from '../../../support/memory-logger';

/**
 * One function's AWS endpoint (what `AWS_ENDPOINT_URL_*` points its SDK at under
 * `npm run start:stack`), driven with the SDK's own clients: an allowed call reaches the local
 * service, a denied one (by the role, or by the bucket's or queue's own policy) is answered as
 * AWS answers it, and a call it cannot map is a failure.
 */
const template: Template = {
  Resources: {
    Accounts: { Type: 'AWS::DynamoDB::GlobalTable', Properties: { TableName: 'accounts' } },
    Mail: { Type: 'AWS::S3::Bucket', Properties: { BucketName: 'mail-bucket' } },
    MailPolicy: {
      Type: 'AWS::S3::BucketPolicy',
      Properties: {
        Bucket: { Ref: 'Mail' },
        PolicyDocument: {
          Statement: [
            { Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Mail', 'Arn'] }, '/*']] }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
            { Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Mail', 'Arn'] }, '/mail/sealed*']] } },
          ],
        },
      },
    },
    Dead: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'dead', MessageRetentionPeriod: 3600 } },
    Closed: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'closed' } },
    ClosedPolicy: {
      Type: 'AWS::SQS::QueuePolicy',
      Properties: {
        Queues: [{ Ref: 'Closed' }],
        PolicyDocument: { Statement: [{ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:*', Resource: { 'Fn::GetAtt': ['Closed', 'Arn'] } }] },
      },
    },
    Cursor: { Type: 'AWS::SecretsManager::Secret', Properties: {} },
    FnRole: { Type: 'AWS::IAM::Role', Properties: {} },
    FnPolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: {
        Roles: [{ Ref: 'FnRole' }],
        PolicyDocument: {
          Statement: [
            { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: { 'Fn::GetAtt': ['Accounts', 'Arn'] } },
            { Effect: 'Allow', Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Mail', 'Arn'] }, '/mail/*']] } },
            { Effect: 'Allow', Action: 's3:DeleteObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Mail', 'Arn'] }, '/mail/old/*']] } },
            { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: 'Cursor' } },
            { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [{ 'Fn::GetAtt': ['Dead', 'Arn'] }, { 'Fn::GetAtt': ['Closed', 'Arn'] }] },
          ],
        },
      },
    },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: { Role: { 'Fn::GetAtt': ['FnRole', 'Arn'] }, FunctionName: 'reader', Environment: { Variables: { SECRET: { Ref: 'Cursor' } } } },
    },
  },
};

const role = loadFunctionRoles(template, localNaming).get('Fn')!;
const fn: StackFunction = {
  logicalId: 'Fn',
  name: role.functionName,
  arn: new TemplateResolver(template, localNaming).arnOf('Fn'),
  assetDir: '',
  file: 'index',
  exportName: 'handler',
  environment: role.environment,
  memoryMb: 128,
  timeoutSeconds: 3,
  role,
  asynchronous: { maximumRetryAttempts: 2, maximumEventAgeSeconds: 21_600 },
};

let dynamodb: LocalDynamoDb;
let blobRoot: string;
let blobs: DirectoryBlobStore;
let endpoint: FunctionEndpoint;
let queues: StackQueues;
const calls: EvaluatedCall[] = [];
const logger = memoryLogger();
const client = <T>(Client: new (config: object) => T) =>
  new Client({
    endpoint: endpoint.url,
    region: localNaming.region,
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: 'ASIALOCAL', secretAccessKey: 'local', sessionToken: 'local' },
  });

beforeAll(async () => {
  dynamodb = await startLocalDynamoDb();
  const admin = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: localNaming.region, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  await admin.send(
    new CreateTableCommand({
      TableName: 'accounts',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
  await admin.send(new PutItemCommand({ TableName: 'accounts', Item: { pk: { S: 'a1' }, plan: { S: 'free' } } }));
  admin.destroy();
  blobRoot = await mkdtemp(join(tmpdir(), 'tempmail-endpoint-'));
  blobs = new DirectoryBlobStore(blobRoot);
  await blobs.put('mail/m1', Buffer.from('stored mail'));
  await blobs.put('inbound/raw1', Buffer.from('raw mail'));
  await blobs.put('mail/sealed1', Buffer.from('sealed mail'));
  for (const key of ['mail/old/1', 'mail/old/2', 'mail/young/3']) await blobs.put(key, Buffer.from(key));
  const secrets = new Map([[role.environment.SECRET!, 'the-cursor-secret']]);
  queues = await startQueues(stackQueues(template));
  endpoint = await startFunctionEndpoint(
    fn,
    { dynamodb: dynamodb.endpoint, s3: s3StandIn('mail-bucket', blobs, blobRoot), secrets, sqs: queues, resourcePolicy: resourcePolicies(template) },
    (call) => calls.push(call),
    logger,
  );
});

afterAll(async () => {
  await endpoint?.close();
  await queues?.close();
  await dynamodb?.close();
  await rm(blobRoot, { recursive: true, force: true });
});

beforeEach(() => {
  calls.length = 0;
  logger.lines.length = 0;
});

describe('a function’s AWS endpoint under start:stack', () => {
  it('passes a call the role allows on to the local service, and records it as allowed', async () => {
    const read = await client(DynamoDBClient).send(new GetItemCommand({ TableName: 'accounts', Key: { pk: { S: 'a1' } } }));
    expect(read.Item?.plan).toEqual({ S: 'free' });
    const object = await client(S3Client).send(new GetObjectCommand({ Bucket: 'mail-bucket', Key: 'mail/m1' }));
    expect(await object.Body!.transformToString()).toBe('stored mail');
    const secret = await client(SecretsManagerClient).send(new GetSecretValueCommand({ SecretId: role.environment.SECRET! }));
    expect(secret.SecretString).toBe('the-cursor-secret');
    expect(calls).toEqual([
      { function: 'reader', service: 'dynamodb', action: 'dynamodb:GetItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/accounts', decision: 'allowed' },
      { function: 'reader', service: 's3', action: 's3:GetObject', resource: 'arn:aws:s3:::mail-bucket/mail/m1', decision: 'allowed' },
      { function: 'reader', service: 'secretsmanager', action: 'secretsmanager:GetSecretValue', resource: role.environment.SECRET, decision: 'allowed' },
    ]);
  });

  it('answers a DynamoDB call the role lacks with AccessDeniedException and 400, logs it, and never writes', async () => {
    const denied = client(DynamoDBClient).send(new PutItemCommand({ TableName: 'accounts', Item: { pk: { S: 'a2' } } }));
    await expect(denied).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 400 },
      message: expect.stringMatching(/^User: arn:aws:sts::000000000000:assumed-role\/.+\/reader is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table\/accounts/),
    });
    expect(calls).toEqual([expect.objectContaining({ action: 'dynamodb:PutItem', decision: 'denied' })]);
    expect(logger.lines).toEqual([
      expect.objectContaining({ level: 'error', message: 'aws call denied', function: 'reader', action: 'dynamodb:PutItem', resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/accounts' }),
    ]);
    const after = await client(DynamoDBClient).send(new GetItemCommand({ TableName: 'accounts', Key: { pk: { S: 'a2' } } }));
    expect(after.Item).toBeUndefined();
  });

  it('answers an S3 call outside the granted prefix with AccessDenied and 403, as S3 does', async () => {
    await expect(client(S3Client).send(new GetObjectCommand({ Bucket: 'mail-bucket', Key: 'inbound/raw1' }))).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(client(S3Client).send(new PutObjectCommand({ Bucket: 'mail-bucket', Key: 'mail/m2', Body: 'x' }))).rejects.toMatchObject({
      name: 'AccessDenied',
    });
    expect(calls.map((call) => [call.action, call.decision])).toEqual([
      ['s3:GetObject', 'denied'],
      ['s3:PutObject', 'denied'],
    ]);
  });

  it('judges a batch delete key by key, as S3 does: the allowed keys go, a refused one is answered AccessDenied in the result', async () => {
    const s3 = client(S3Client);
    const answer = await s3.send(
      new DeleteObjectsCommand({ Bucket: 'mail-bucket', Delete: { Objects: [{ Key: 'mail/old/1' }, { Key: 'mail/young/3' }, { Key: 'mail/old/2' }, { Key: 'mail/old/none' }] } }),
    );
    expect(answer.Deleted?.map((deleted) => deleted.Key)).toEqual(['mail/old/1', 'mail/old/2', 'mail/old/none']);
    expect(answer.Errors).toEqual([expect.objectContaining({ Key: 'mail/young/3', Code: 'AccessDenied' })]);
    expect(calls.map((call) => [call.action, call.resource.replace('arn:aws:s3:::mail-bucket/', ''), call.decision])).toEqual([
      ['s3:DeleteObject', 'mail/old/1', 'allowed'],
      ['s3:DeleteObject', 'mail/young/3', 'denied'],
      ['s3:DeleteObject', 'mail/old/2', 'allowed'],
      ['s3:DeleteObject', 'mail/old/none', 'allowed'],
    ]);
    // The service's own adapter reads the refusal as a failure of that key, never as done.
    const failure = await new S3BlobStore(s3, 'mail-bucket').deleteMany(['mail/young/3']).catch((error: unknown) => error);
    expect(failure).toEqual(new BlobsNotDeleted([{ key: 'mail/young/3', reason: 'AccessDenied' }]));
    const kept = await blobs.get('mail/young/3');
    if (kept && !kept.notModified) kept.body.destroy();
    expect(kept).toMatchObject({ size: 'mail/young/3'.length });
    expect(await blobs.get('mail/old/1')).toBeUndefined();
  });

  it('refuses a batch delete of more than 1,000 keys as S3 does (400 MalformedXML), before any key is judged or deleted', async () => {
    await blobs.put('mail/kept', Buffer.from('kept'));
    const keys = [...Array.from({ length: 1000 }, (_, i) => ({ Key: `mail/none/${i}` })), { Key: 'mail/kept' }];
    await expect(client(S3Client).send(new DeleteObjectsCommand({ Bucket: 'mail-bucket', Delete: { Objects: keys } }))).rejects.toMatchObject({
      name: 'MalformedXML',
      $metadata: { httpStatusCode: 400 },
    });
    expect(calls).toEqual([]);
    const kept = await blobs.get('mail/kept');
    if (kept && !kept.notModified) kept.body.destroy();
    expect(kept).toMatchObject({ size: 'kept'.length });
  });

  it("refuses a message over SQS's 1 MiB (body and attributes) as SQS does, as a dead letter of a near-1 MB event would be", async () => {
    // A queue of its own (sent to as Lambda sends, with no policy in the way), so that the dead-letter queue's test reads only its own letter.
    const queue = `arn:aws:sqs:${localNaming.region}:${localNaming.account}:closed`;
    const attributes = { RequestID: { DataType: 'String', StringValue: 'r' } };
    // The body and each attribute's name, type and value count: 'RequestID' + 'String' + 'r' = 16 bytes.
    await expect(queues.send(queue, 'x'.repeat(1024 * 1024 - 16), attributes)).resolves.toBeUndefined();
    await expect(queues.send(queue, 'x'.repeat(1024 * 1024 - 15), attributes)).rejects.toMatchObject({
      $metadata: { httpStatusCode: 400 },
      message: 'One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes.',
    });
  });

  it('fails a call it cannot map (an unknown command, operation or service) with 500, never passing it on', async () => {
    const unmapped = [
      () => client(DynamoDBClient).send(new ListTagsOfResourceCommand({ ResourceArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/accounts' })),
      () => client(S3Client).send(new GetBucketAclCommand({ Bucket: 'mail-bucket' })),
      () => client(SESClient).send(new SendEmailCommand({ Source: 'a@example.org', Destination: { ToAddresses: ['b@example.org'] }, Message: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } })),
    ];
    // The endpoint's own answer, not the local service's: the call went no further.
    for (const send of unmapped) {
      await expect(send()).rejects.toMatchObject({ $metadata: { httpStatusCode: 500 }, message: expect.stringContaining('the local stack cannot evaluate this call') });
    }
    expect(calls.map((call) => [call.service, call.decision])).toEqual([
      ['dynamodb', 'unmappable'],
      ['s3', 'unmappable'],
      ['ses', 'unmappable'],
    ]);
    expect(logger.lines.map((line) => [line.message, line.function])).toEqual([
      ['aws call not evaluated', 'reader'],
      ['aws call not evaluated', 'reader'],
      ['aws call not evaluated', 'reader'],
    ]);
  });

  it('answers a call the bucket policy denies with AccessDenied and 403, naming the resource-based policy, though the role allows it', async () => {
    await expect(client(S3Client).send(new GetObjectCommand({ Bucket: 'mail-bucket', Key: 'mail/sealed1' }))).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    expect(calls).toEqual([expect.objectContaining({ action: 's3:GetObject', resource: 'arn:aws:s3:::mail-bucket/mail/sealed1', decision: 'denied' })]);
    expect(logger.lines).toEqual([expect.objectContaining({ message: 'aws call denied', reason: expect.stringContaining('explicitly denied in the resource policy MailPolicy') })]);
  });

  it('passes an allowed SQS call on to the emulator under the template’s queue URL, and answers one the queue policy denies as SQS does', async () => {
    const templateUrl = (name: string) => `https://sqs.${localNaming.region}.amazonaws.com/${localNaming.account}/${name}`;
    await client(SQSClient).send(new SendMessageCommand({ QueueUrl: templateUrl('dead'), MessageBody: 'kept' }));
    const admin = new SQSClient({ endpoint: queues.endpoint, region: localNaming.region, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const received = await admin.send(new ReceiveMessageCommand({ QueueUrl: queues.localUrl('dead'), VisibilityTimeout: 0 }));
    admin.destroy();
    expect(received.Messages?.map((message) => message.Body)).toEqual(['kept']);
    await expect(client(SQSClient).send(new SendMessageCommand({ QueueUrl: templateUrl('closed'), MessageBody: 'refused' }))).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
      message: expect.stringContaining('with an explicit deny in a resource-based policy'),
    });
    expect(calls.map((call) => [call.action, call.resource, call.decision])).toEqual([
      ['sqs:SendMessage', 'arn:aws:sqs:us-east-1:000000000000:dead', 'allowed'],
      ['sqs:SendMessage', 'arn:aws:sqs:us-east-1:000000000000:closed', 'denied'],
    ]);
  });

  it("passes an allowed DynamoDB call to dynalite's thread over its channel, answers as over HTTP, and still judges every call", async () => {
    // Nothing listens at the HTTP endpoint given: only the channel can answer.
    const channelled = await startFunctionEndpoint(
      fn,
      { dynamodb: 'http://127.0.0.1:9', dynamodbChannel: dynamodb.requestHandler, s3: s3StandIn('mail-bucket', blobs, blobRoot), secrets: new Map(), resourcePolicy: resourcePolicies(template) },
      (call) => calls.push(call),
      logger,
    );
    try {
      const reader = new DynamoDBClient({ endpoint: channelled.url, region: localNaming.region, maxAttempts: 1, credentials: { accessKeyId: 'ASIALOCAL', secretAccessKey: 'local', sessionToken: 'local' } });
      const read = await reader.send(new GetItemCommand({ TableName: 'accounts', Key: { pk: { S: 'a1' } } }));
      expect(read.Item?.plan).toEqual({ S: 'free' });
      // dynalite's own error reaches the SDK as it would over HTTP: its type, status and message.
      await expect(reader.send(new GetItemCommand({ TableName: 'accounts', Key: { other: { S: 'a1' } } }))).rejects.toMatchObject({
        name: 'ValidationException',
        $metadata: { httpStatusCode: 400 },
      });
      await expect(reader.send(new PutItemCommand({ TableName: 'accounts', Item: { pk: { S: 'a3' } } }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
      reader.destroy();
      expect(calls.map((call) => [call.action, call.decision])).toEqual([
        ['dynamodb:GetItem', 'allowed'],
        ['dynamodb:GetItem', 'allowed'],
        ['dynamodb:PutItem', 'denied'],
      ]);
    } finally {
      await channelled.close();
    }
  });
});
