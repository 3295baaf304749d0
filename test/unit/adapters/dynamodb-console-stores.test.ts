import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../lambdas/adapters/dynamodb/document-client';
import { DynamoDbAccountStore } from '../../../lambdas/adapters/dynamodb/dynamodb-account-store';
import { DynamoDbEmailStore } from '../../../lambdas/adapters/dynamodb/dynamodb-email-store';
import { DynamoDbIdentityStore } from '../../../lambdas/adapters/dynamodb/dynamodb-identity-store';

const dynamo = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9' });
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

beforeEach(() => dynamo.reset());

describe('DynamoDbIdentityStore', () => {
  const store = new DynamoDbIdentityStore(client, 'identities');
  const entry = { identity: '["https://issuer","sub-1"]', accountId: 'acc_new', createdAt: '2026-11-22T12:00:00.000Z' };

  it('claims an identity with one conditional put', async () => {
    dynamo.on(PutCommand).resolves({});
    expect(await store.claim(entry)).toBe('acc_new');
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      TableName: 'identities',
      Item: { identity: entry.identity, account_id: 'acc_new' },
      ConditionExpression: 'attribute_not_exists(#identity)',
      ExpressionAttributeNames: { '#identity': 'identity' },
    });
  });

  it('answers the account of the earlier claim when it loses the race', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    dynamo.on(GetCommand).resolves({ Item: { identity: entry.identity, account_id: 'acc_first' } });
    expect(await store.claim(entry)).toBe('acc_first');
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input).toMatchObject({ ConsistentRead: true });
  });
});

describe('DynamoDbAccountStore key-change window', () => {
  const store = new DynamoDbAccountStore(client, 'accounts');

  it('counts a change in the current hour while below the limit', async () => {
    dynamo.on(UpdateCommand).resolves({});
    expect(await store.admitKeyChange('acc_1', { id: 7, limit: 20 })).toBe(true);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('starts a new hour when the stored one is older, and refuses a full current hour', async () => {
    dynamo.on(UpdateCommand).rejectsOnce(conditionFailed()).resolves({});
    expect(await store.admitKeyChange('acc_1', { id: 8, limit: 20 })).toBe(true);
    expect(dynamo.commandCalls(UpdateCommand)[1]!.args[0].input.UpdateExpression).toBe('SET key_win = :w, key_win_count = :one');
    dynamo.reset();
    dynamo.on(UpdateCommand).rejects(conditionFailed());
    expect(await store.admitKeyChange('acc_1', { id: 8, limit: 20 })).toBe(false);
  });

  it('counts in the window a concurrent request opened when it loses the race to open it', async () => {
    // Counting fails (no window yet), opening fails (another request opened it), counting again succeeds.
    dynamo.on(UpdateCommand).rejectsOnce(conditionFailed()).rejectsOnce(conditionFailed()).resolves({});
    expect(await store.admitKeyChange('acc_1', { id: 8, limit: 20 })).toBe(true);
    expect(dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input.UpdateExpression)).toEqual([
      'SET key_win_count = key_win_count + :one',
      'SET key_win = :w, key_win_count = :one',
      'SET key_win_count = key_win_count + :one',
    ]);
    // Every count is conditional on the limit, so a full window refuses after its bounded rounds.
    for (const call of dynamo.commandCalls(UpdateCommand).filter((c) => c.args[0].input.UpdateExpression!.includes('+'))) {
      expect(call.args[0].input.ConditionExpression).toContain('key_win_count < :limit');
    }
  });

  it("records the key's last use in the admission's own write", async () => {
    const item = { account_id: 'acc_1', plan: 'free', status: 'active', env: 'local', created_at: 'x', allowance_base: 100, allowance_additional: 0, allowance_remaining: 9, win: 5, win_count: 1, win_keys: {}, used_key_1: '2026-11-22T12:00:00.000Z' };
    dynamo.on(UpdateCommand).resolves({ Attributes: item });
    const outcome = await store.reserve('acc_1', { keyId: 'key_1', charge: true, window: { id: 5, perKey: 300, perAccount: 600 }, at: '2026-11-22T12:00:00.000Z' });
    expect(outcome).toMatchObject({ outcome: 'reserved', account: { keyLastUsed: { key_1: '2026-11-22T12:00:00.000Z' } } });
    const input = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(input.UpdateExpression).toContain('#used = :at');
    expect(input.ExpressionAttributeNames).toMatchObject({ '#used': 'used_key_1' });
  });
});

describe('DynamoDbEmailStore by account', () => {
  const store = new DynamoDbEmailStore(client, 'emails');
  const item = (n: number) => ({
    email_id: `eml_${n}`,
    account_id: 'acc_1',
    address: `a${n}@x.test`,
    local_part: `a${n}`,
    domain: 'x.test',
    created_at: `2026-11-22T12:00:0${n}.000Z`,
    expires_at: '2026-12-22T12:00:00.000Z',
    ttl: 1,
  });

  it('queries the account index newest first, one item past the page, and names the next position only when one exists', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [item(3), item(2), item(1)] });
    const page = await store.listByAccount('acc_1', { limit: 2 });
    expect(page.items.map((email) => email.emailId)).toEqual(['eml_3', 'eml_2']);
    expect(page.next).toBe(JSON.stringify(['2026-11-22T12:00:02.000Z', 'eml_2']));
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({ IndexName: 'by_account', ScanIndexForward: false, Limit: 3 });

    dynamo.on(QueryCommand).resolves({ Items: [item(1)] });
    const last = await store.listByAccount('acc_1', { limit: 2, after: page.next! });
    expect(last.next).toBeUndefined();
    expect(dynamo.commandCalls(QueryCommand)[1]!.args[0].input.ExclusiveStartKey).toEqual({
      account_id: 'acc_1',
      created_at: '2026-11-22T12:00:02.000Z',
      email_id: 'eml_2',
    });
  });
});
