import {
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { startLocalDynamoDb, type LocalDynamoDb } from '../../../local/local-dynamodb';

// The patch changes how dynalite stores a write; these check that what DynamoDB promises still holds.
let dynamodb: LocalDynamoDb;
let client: DynamoDBClient;

beforeAll(async () => {
  dynamodb = await startLocalDynamoDb();
  client = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  await client.send(
    new CreateTableCommand({
      TableName: 'things',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'owner', AttributeType: 'S' },
        { AttributeName: 'sort', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'by_owner',
          KeySchema: [
            { AttributeName: 'owner', KeyType: 'HASH' },
            { AttributeName: 'sort', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  await client.send(
    new CreateTableCommand({
      TableName: 'plain',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    }),
  );
});
afterAll(async () => {
  client.destroy();
  await dynamodb.close();
});

const byOwner = async (owner: string) =>
  (
    await client.send(
      new QueryCommand({
        TableName: 'things',
        IndexName: 'by_owner',
        KeyConditionExpression: '#o = :o',
        ExpressionAttributeNames: { '#o': 'owner' },
        ExpressionAttributeValues: { ':o': { S: owner } },
      }),
    )
  ).Items ?? [];

describe('dynalite with item and index entries written in one batch', () => {
  it('lists a put item through its index and reads it by key', async () => {
    await client.send(new PutItemCommand({ TableName: 'things', Item: { id: { S: 'a' }, owner: { S: 'ann' }, sort: { S: '1' }, n: { N: '1' } } }));
    expect(await byOwner('ann')).toEqual([{ id: { S: 'a' }, owner: { S: 'ann' }, sort: { S: '1' }, n: { N: '1' } }]);
    expect((await client.send(new GetItemCommand({ TableName: 'things', Key: { id: { S: 'a' } } }))).Item?.n).toEqual({ N: '1' });
  });

  it('moves the index entry when an update changes its key, and keeps other attributes current', async () => {
    await client.send(
      new UpdateItemCommand({
        TableName: 'things',
        Key: { id: { S: 'a' } },
        UpdateExpression: 'SET #o = :o, n = :n',
        ExpressionAttributeNames: { '#o': 'owner' },
        ExpressionAttributeValues: { ':o': { S: 'bob' }, ':n': { N: '2' } },
      }),
    );
    expect(await byOwner('ann')).toEqual([]);
    expect(await byOwner('bob')).toEqual([{ id: { S: 'a' }, owner: { S: 'bob' }, sort: { S: '1' }, n: { N: '2' } }]);
  });

  it('writes nothing when a condition fails', async () => {
    await expect(
      client.send(
        new PutItemCommand({
          TableName: 'things',
          Item: { id: { S: 'a' }, owner: { S: 'cat' }, sort: { S: '1' } },
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(await byOwner('cat')).toEqual([]);
    expect(await byOwner('bob')).toHaveLength(1);
  });

  it('removes the item and its index entry together on delete', async () => {
    await client.send(new DeleteItemCommand({ TableName: 'things', Key: { id: { S: 'a' } } }));
    expect(await byOwner('bob')).toEqual([]);
    expect((await client.send(new GetItemCommand({ TableName: 'things', Key: { id: { S: 'a' } } }))).Item).toBeUndefined();
  });

  it('stores items of a table without indexes, and items without the index attributes', async () => {
    await client.send(new PutItemCommand({ TableName: 'plain', Item: { id: { S: 'p' } } }));
    await client.send(new PutItemCommand({ TableName: 'things', Item: { id: { S: 'no-owner' } } }));
    expect((await client.send(new GetItemCommand({ TableName: 'plain', Key: { id: { S: 'p' } } }))).Item).toEqual({ id: { S: 'p' } });
    expect((await client.send(new GetItemCommand({ TableName: 'things', Key: { id: { S: 'no-owner' } } }))).Item).toEqual({ id: { S: 'no-owner' } });
  });
});
