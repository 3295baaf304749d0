import { ConditionalCheckFailedException, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../lambdas/adapters/dynamodb/document-client';
import { DynamoDbAccountStore } from '../../../lambdas/adapters/dynamodb/dynamodb-account-store';
import { DynamoDbApiKeyStore } from '../../../lambdas/adapters/dynamodb/dynamodb-api-key-store';
import { DynamoDbDomainStore } from '../../../lambdas/adapters/dynamodb/dynamodb-domain-store';
import { Unavailable } from '../../../lambdas/core/errors';

const dynamo = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9' });

const accountItem = {
  account_id: 'acc_1',
  plan: 'free',
  status: 'active',
  env: 'local',
  created_at: '2026-11-22T12:00:00.000Z',
  allowance_base: 100,
  allowance_additional: 0,
  allowance_remaining: 0,
};
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const throttled = () =>
  new DynamoDBServiceException({
    name: 'ProvisionedThroughputExceededException',
    message: 'Rate of requests exceeds the allowed throughput.',
    $fault: 'client',
    $metadata: {},
  });

beforeEach(() => dynamo.reset());

describe('DynamoDbAccountStore as the ledger', () => {
  const store = new DynamoDbAccountStore(client, 'accounts');
  const admission = { keyId: 'key_1', charge: true, window: { id: 1000, perKey: 300, perAccount: 600 } };
  const current = { ...accountItem, allowance_remaining: 5, win: 1000, win_count: 10, win_keys: { key_1: 10 } };

  it('admits with one conditional update that counts the window and can never pass zero', async () => {
    dynamo.on(UpdateCommand).resolves({ Attributes: { ...current, allowance_remaining: 41 } });
    const outcome = await store.reserve('acc_1', admission);
    expect(outcome).toMatchObject({ outcome: 'reserved', account: { allowance: { remaining: 41 } } });
    const input = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.UpdateExpression).toContain('allowance_remaining = allowance_remaining - :one');
    expect(input.UpdateExpression).toContain('win_count = win_count + :one');
    expect(input.ConditionExpression).toContain('allowance_remaining > :zero');
    expect(input.ConditionExpression).toContain('#status = :active');
    expect(input.ConditionExpression).toContain('win_count < :perAccount');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':perAccount': 600, ':perKey': 300, ':w': 1000 });
    expect(input.ExpressionAttributeNames).toMatchObject({ '#key': 'key_1' });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('leaves the allowance alone for an uncharged operation', async () => {
    dynamo.on(UpdateCommand).resolves({ Attributes: current });
    await store.reserve('acc_1', { ...admission, charge: false });
    const input = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.UpdateExpression).not.toContain('allowance_remaining');
    expect(input.ConditionExpression).not.toContain('allowance_remaining');
  });

  it.each([
    ['exhausted', { ...current, allowance_remaining: 0 }],
    ['suspended', { ...current, status: 'suspended' }],
    ['rate_limited', { ...current, win_count: 600 }],
    ['rate_limited', { ...current, win_keys: { key_1: 300 } }],
  ])('explains a failed condition as %s with one consistent read', async (outcome, item) => {
    dynamo.on(UpdateCommand).rejects(conditionFailed());
    dynamo.on(GetCommand).resolves({ Item: item });
    expect(await store.reserve('acc_1', admission)).toMatchObject({ outcome });
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input.ConsistentRead).toBe(true);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('explains a missing account as absent', async () => {
    dynamo.on(UpdateCommand).rejects(conditionFailed());
    dynamo.on(GetCommand).resolves({});
    expect(await store.reserve('acc_1', admission)).toEqual({ outcome: 'absent' });
  });

  it('starts a new window with a second conditional update when the minute has moved on', async () => {
    dynamo
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed())
      .resolves({ Attributes: { ...current, win: 1000, win_count: 1 } });
    dynamo.on(GetCommand).resolves({ Item: { ...current, win: 999, win_count: 600 } });
    expect(await store.reserve('acc_1', admission)).toMatchObject({ outcome: 'reserved' });
    const restart = dynamo.commandCalls(UpdateCommand)[1]!.args[0].input;
    expect(restart.UpdateExpression).toContain('win = :w');
    expect(restart.ConditionExpression).toContain('win < :w');
    expect(restart.ExpressionAttributeValues).toMatchObject({ ':fresh': { key_1: 1 } });
  });

  it('tries again when a refund raced the failed condition', async () => {
    dynamo
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed())
      .resolves({ Attributes: { ...current, allowance_remaining: 0 } });
    dynamo.on(GetCommand).resolves({ Item: { ...current, allowance_remaining: 1 } });
    expect(await store.reserve('acc_1', admission)).toMatchObject({ outcome: 'reserved' });
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(2);
  });

  it('turns a throttled write into 503 Unavailable', async () => {
    dynamo.on(UpdateCommand).rejects(throttled());
    await expect(store.reserve('acc_1', admission)).rejects.toBeInstanceOf(Unavailable);
    await expect(store.refund('acc_1')).rejects.toBeInstanceOf(Unavailable);
  });

  it('lets an unexpected error through unchanged', async () => {
    dynamo.on(GetCommand).rejects(new Error('ValidationException: bad key'));
    await expect(store.get('acc_1')).rejects.toThrow('ValidationException');
  });

  it('refunds one unit of an existing account only', async () => {
    dynamo.on(UpdateCommand).resolves({ Attributes: accountItem });
    await store.refund('acc_1');
    const input = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.UpdateExpression).toBe('SET allowance_remaining = allowance_remaining + :one');
    expect(input.ConditionExpression).toBe('attribute_exists(account_id)');
  });

  it('grants to remaining and additional together, and reports an absent account', async () => {
    dynamo.on(UpdateCommand).resolvesOnce({ Attributes: { ...accountItem, allowance_additional: 50, allowance_remaining: 50 } });
    expect(await store.grant('acc_1', 50)).toEqual({ base: 100, additional: 50, remaining: 50 });
    dynamo.on(UpdateCommand).rejects(conditionFailed());
    expect(await store.grant('acc_missing', 50)).toBeUndefined();
  });

  it('never overwrites an existing account on create', async () => {
    dynamo.on(PutCommand).resolves({});
    await store.create({
      accountId: 'acc_1',
      plan: 'paid',
      status: 'active',
      env: 'local',
      createdAt: 'now',
      allowance: { base: 10_000, additional: 0, remaining: 10_000 },
    });
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input.ConditionExpression).toBe('attribute_not_exists(account_id)');
  });
});

describe('DynamoDbApiKeyStore', () => {
  const store = new DynamoDbApiKeyStore(client, 'keys');

  it('looks keys up by hash with a consistent read, so a revocation applies at once', async () => {
    dynamo.on(GetCommand).resolves({
      Item: { key_hash: 'h', key_id: 'key_1', account_id: 'acc_1', env: 'local', status: 'revoked', created_at: 't' },
    });
    expect(await store.findByHash('h')).toMatchObject({ keyId: 'key_1', status: 'revoked' });
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ Key: { key_hash: 'h' }, ConsistentRead: true });
  });

  it('reports revoking an unknown key as false', async () => {
    dynamo.on(UpdateCommand).rejects(conditionFailed());
    expect(await store.revoke('nope')).toBe(false);
  });
});

describe('DynamoDbDomainStore', () => {
  it('lists every page of the table', async () => {
    dynamo
      .on(ScanCommand)
      .resolvesOnce({ Items: [{ domain: 'a.test', create_enabled: true, receive_enabled: true }], LastEvaluatedKey: { domain: 'a.test' } })
      .resolvesOnce({ Items: [{ domain: 'b.test', create_enabled: false, receive_enabled: true }] });
    const domains = await new DynamoDbDomainStore(client, 'domains').list();
    expect(domains.map((domain) => domain.domain)).toEqual(['a.test', 'b.test']);
    expect(dynamo.commandCalls(ScanCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({ domain: 'a.test' });
  });
});
