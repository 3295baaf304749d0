import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../lambdas/adapters/dynamodb/document-client';
import { DynamoDbAddressRegistry } from '../../../lambdas/adapters/dynamodb/dynamodb-address-registry';
import { DynamoDbEmailStore } from '../../../lambdas/adapters/dynamodb/dynamodb-email-store';
import { DynamoDbIdempotencyStore } from '../../../lambdas/adapters/dynamodb/dynamodb-idempotency-store';
import type { IdempotencyRecord } from '../../../lambdas/core/mail-ports';

const dynamo = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9' });
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

beforeEach(() => dynamo.reset());

describe('DynamoDbEmailStore', () => {
  const store = new DynamoDbEmailStore(client, 'emails');
  const email = {
    emailId: 'eml_1234567890',
    accountId: 'acc_1',
    address: 'a@example.test',
    localPart: 'a',
    domain: 'example.test',
    createdAt: '2026-11-22T12:00:00.000Z',
    expiresAt: '2026-12-22T12:00:00.000Z',
  };

  it('creates once, with a TTL a week after the reservation ends', async () => {
    dynamo.on(PutCommand).resolves({});
    expect(await store.create(email)).toBe('created');
    const input = dynamo.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('attribute_not_exists(email_id)');
    expect(input.Item!.ttl).toBe(Date.parse(email.expiresAt) / 1000 + 7 * 24 * 3600);
  });

  it('reports an email already stored by an earlier attempt as exists', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    expect(await store.create(email)).toBe('exists');
  });

  it('reads back what it wrote', async () => {
    dynamo.on(GetCommand).resolves({
      Item: { email_id: email.emailId, account_id: 'acc_1', address: email.address, local_part: 'a', domain: 'example.test', created_at: email.createdAt, expires_at: email.expiresAt, ttl: 1 },
    });
    expect(await store.get(email.emailId)).toEqual(email);
  });
});

describe('DynamoDbAddressRegistry', () => {
  const registry = new DynamoDbAddressRegistry(client, 'addresses');
  const entry = { address: 'a@example.test', emailId: 'eml_mine', accountId: 'acc_1', claimedAt: 'now' };

  it('claims an address that was never issued with one conditional put', async () => {
    dynamo.on(PutCommand).resolves({});
    expect(await registry.claim(entry)).toEqual({ outcome: 'claimed' });
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input.ConditionExpression).toBe('attribute_not_exists(address)');
  });

  it('recognizes its own earlier claim, and refuses anybody else', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: { address: entry.address, email_id: 'eml_mine' } })
      .resolvesOnce({ Item: { address: entry.address, email_id: 'eml_other' } });
    expect(await registry.claim(entry)).toEqual({ outcome: 'claimed' });
    expect(await registry.claim(entry)).toEqual({ outcome: 'taken', heldBy: 'eml_other' });
  });
});

describe('DynamoDbIdempotencyStore', () => {
  const store = new DynamoDbIdempotencyStore(client, 'idempotency');
  const record: IdempotencyRecord = {
    recordKey: 'acc_1#createEmail#h',
    requestHash: 'rh',
    status: 'in_progress',
    emailId: 'eml_1',
    address: 'a@example.test',
    localPart: 'a',
    domain: 'example.test',
    leaseUntil: 2_000,
    leaseToken: 'token-1',
    expiresAt: 86_401_000,
  };
  const item = {
    record_key: record.recordKey,
    request_hash: 'rh',
    status: 'completed',
    email_id: 'eml_1',
    address: record.address,
    local_part: 'a',
    domain: 'example.test',
    lease_until: 2_000,
    lease_token: 'token-0',
    expires_at: 86_401_000,
    ttl: 86_401,
  };

  it('begins a record unless a live one exists, replacing one past its 24 hours or refused for another request', async () => {
    dynamo.on(PutCommand).resolves({});
    expect(await store.begin(record, 1_000)).toEqual({ outcome: 'started' });
    const input = dynamo.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe(
      'attribute_not_exists(record_key) OR expires_at <= :now OR (#status = :refused AND request_hash <> :hash)',
    );
    expect(input.ExpressionAttributeValues).toEqual({ ':now': 1_000, ':refused': 'refused', ':hash': 'rh' });
    expect(input.Item).toMatchObject({ ttl: 86_401, lease_token: 'token-1', status: 'in_progress' });
  });

  it('returns the existing record when one is live', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    dynamo.on(GetCommand).resolves({ Item: item });
    expect(await store.begin(record, 1_000)).toEqual({
      outcome: 'exists',
      record: { ...record, status: 'completed', leaseToken: 'token-0' },
    });
  });

  it('takes over only an in-progress record whose lease has run out', async () => {
    dynamo.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    expect(await store.takeOver(record.recordKey, { until: 20_000, token: 'token-2' }, 5_000)).toBe(true);
    expect(await store.takeOver(record.recordKey, { until: 20_000, token: 'token-3' }, 5_000)).toBe(false);
    const input = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.ConditionExpression).toBe('#status = :in_progress AND lease_until <= :now');
  });

  it('releases and refuses only under its own lease, quietly when it has lost it', async () => {
    dynamo.on(UpdateCommand).rejects(conditionFailed());
    const refusal = { code: 'address_unavailable', message: 'taken' };
    await expect(store.release(record.recordKey, 'token-1')).resolves.toBeUndefined();
    await expect(store.refuse(record.recordKey, 'token-1', refusal)).resolves.toBeUndefined();
    const [release, refuse] = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(release!.ConditionExpression).toContain('lease_token = :token');
    expect(refuse!.ConditionExpression).toBe('lease_token = :token AND #status = :in_progress');
    expect(refuse!.ExpressionAttributeValues).toMatchObject({ ':refused': 'refused', ':refusal': refusal });
  });

  it('reads a refused record with its refusal', async () => {
    const refusal = { code: 'policy_violation', message: 'no', details: [{ field: 'domain', reason: 'domain_not_allowed' }] };
    dynamo.on(GetCommand).resolves({ Item: { ...item, status: 'refused', refusal } });
    expect(await store.get(record.recordKey)).toEqual({ ...record, status: 'refused', leaseToken: 'token-0', refusal });
  });

  it('refuses to replan a record whose lease it lost', async () => {
    dynamo.on(UpdateCommand).rejects(conditionFailed());
    await expect(store.replan(record.recordKey, 'token-1', { address: 'b@example.test', localPart: 'b' })).rejects.toThrow(
      'lease lost',
    );
  });
});
