import { BatchGetItemCommand, BatchWriteItemCommand, CreateTableCommand, DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../../local/local-dynamodb';

/**
 * DynamoDB's request limits as the local DynamoDB that `npm run start:stack` forwards every
 * allowed call to applies them (dynalite, as DynamoDB): a batch write of 25 requests, a batch
 * read of 100 keys and 16 MB, a query page of 1 MB.
 */
let dynamodb: LocalDynamoDb;
let client: DynamoDBClient;
const TableName = 'limits';
/** An item of about 390 KB, under DynamoDB's 400 KB item limit. */
const large = (sk: number) => ({ pk: { S: 'p' }, sk: { S: String(sk).padStart(3, '0') }, body: { S: 'x'.repeat(390_000) } });

beforeAll(async () => {
  dynamodb = await startLocalDynamoDb();
  client = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: 'us-east-1', maxAttempts: 1, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  // 44 items of 390 KB: 17 MB, over a batch read's 16 MB.
  for (let sk = 0; sk < 44; sk++) await client.send(new PutItemCommand({ TableName, Item: large(sk) }));
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await dynamodb?.close();
});

const keys = (count: number) => Array.from({ length: count }, (_, sk) => ({ pk: { S: 'p' }, sk: { S: String(sk).padStart(3, '0') } }));

it('refuses a batch write of 26 requests with ValidationException', async () => {
  const puts = keys(26).map((Item) => ({ PutRequest: { Item } }));
  await expect(client.send(new BatchWriteItemCommand({ RequestItems: { [TableName]: puts } }))).rejects.toMatchObject({
    name: 'ValidationException',
    message: expect.stringContaining('Member must have length less than or equal to 25'),
  });
});

it('refuses a batch read of 101 keys with ValidationException, and answers one over 16 MB in part, the rest unprocessed', async () => {
  await expect(client.send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: keys(101) } } }))).rejects.toMatchObject({
    name: 'ValidationException',
    message: expect.stringContaining('Member must have length less than or equal to 100'),
  });
  const read = await client.send(new BatchGetItemCommand({ RequestItems: { [TableName]: { Keys: keys(44) } } }));
  const returned = read.Responses?.[TableName]?.length ?? 0;
  expect(returned).toBeLessThan(44);
  expect(returned + (read.UnprocessedKeys?.[TableName]?.Keys?.length ?? 0)).toBe(44);
});

it('ends a query page at 1 MB, with the key to go on from', async () => {
  const page = await client.send(new QueryCommand({ TableName, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } }));
  expect(page.Count).toBe(3);
  expect(page.LastEvaluatedKey).toEqual({ pk: { S: 'p' }, sk: { S: '002' } });
});
