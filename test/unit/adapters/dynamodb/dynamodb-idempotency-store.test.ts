import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { DynamoDbIdempotencyStore } from '../../../../lambdas/adapters/dynamodb/dynamodb-idempotency-store';
import type { IdempotencyRecord } from '../../../../lambdas/core/ports/idempotency-store';
import { startLocalTables, type LocalTables, sentCommands } from '../../../support/local-tables';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('idempotency');
});
afterAll(() => tables.close());

let next = 0;
/** A store over a fresh client, and a record of a key no other test uses. */
function fresh(overrides: Partial<IdempotencyRecord> = {}, client: DynamoDBDocumentClient = tables.client()) {
  const store = new DynamoDbIdempotencyStore(client, tables.names.idempotency);
  const record: IdempotencyRecord = {
    recordKey: `acc_1#key-${next++}`,
    requestHash: 'rh',
    status: 'in_progress',
    emailId: 'eml_1',
    address: 'a@example.test',
    localPart: 'a',
    domain: 'example.test',
    leaseUntil: 2_000,
    leaseToken: 'token-1',
    expiresAt: 86_401_000,
    ...overrides,
  };
  return { store, record, client };
}

describe('DynamoDbIdempotencyStore, on dynalite', () => {
  it('begins a record unless a live one exists, which it returns as stored', async () => {
    const { store, record } = fresh();
    expect(await store.begin(record, 1_000)).toEqual({ outcome: 'started' });
    await store.complete(record.recordKey);
    expect(await store.begin({ ...record, leaseToken: 'token-2', emailId: 'eml_2' }, 1_500)).toEqual({
      outcome: 'exists',
      record: { ...record, status: 'completed' },
    });
  });

  it('replaces a record past its 24 hours, and a refused one of another request, but not a refused one of the same', async () => {
    const { store, record } = fresh();
    await store.begin(record, 1_000);
    const later = record.expiresAt * 2;
    expect(await store.begin({ ...record, leaseToken: 'token-2', expiresAt: later }, record.expiresAt)).toEqual({ outcome: 'started' });
    await store.refuse(record.recordKey, 'token-2', { code: 'address_unavailable', message: 'taken' });
    const same = await store.begin({ ...record, leaseToken: 'token-3' }, record.expiresAt + 1);
    expect(same).toMatchObject({ outcome: 'exists', record: { status: 'refused', refusal: { code: 'address_unavailable' } } });
    expect(await store.begin({ ...record, requestHash: 'other', leaseToken: 'token-4' }, record.expiresAt + 1)).toEqual({ outcome: 'started' });
  });

  it('reads the holder from the refused write where DynamoDB returns it (ALL_OLD), with no read of its own', async () => {
    const client = tables.client();
    const { store, record } = fresh({}, client);
    const holder = { ...record, status: 'completed' as const, leaseToken: 'token-0' };
    const sent = sentCommands(client);
    // DynamoDB's answer to a refused write with ReturnValuesOnConditionCheckFailure: the item, in attribute form.
    client.middlewareStack.add(
      (nextHandler, context) => (args) => {
        if (context.commandName !== 'PutItemCommand') return nextHandler(args);
        expect((args.input as { ReturnValuesOnConditionCheckFailure?: string }).ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
        const item = marshall({
          record_key: holder.recordKey, request_hash: 'rh', status: 'completed', email_id: 'eml_1', address: holder.address,
          local_part: 'a', domain: 'example.test', lease_until: 2_000, lease_token: 'token-0', expires_at: holder.expiresAt, ttl: 86_401,
        });
        throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: item });
      },
      { step: 'initialize', name: 'testAllOld' },
    );
    expect(await store.begin(record, 1_000)).toEqual({ outcome: 'exists', record: holder });
    expect(sent).toEqual(['PutItemCommand']);
  });

  it('reads the holder consistently where the refused write returns nothing, as dynalite does', async () => {
    const client = tables.client();
    const { store, record } = fresh({}, client);
    await store.begin(record, 1_000);
    const sent = sentCommands(client);
    expect(await store.begin({ ...record, leaseToken: 'token-2' }, 1_500)).toMatchObject({ outcome: 'exists', record: { leaseToken: 'token-1' } });
    expect(sent).toEqual(['PutItemCommand', 'GetItemCommand']);
  });

  it('takes over only an in-progress record whose lease has run out', async () => {
    const { store, record } = fresh();
    await store.begin(record, 1_000);
    expect(await store.takeOver(record.recordKey, { until: 20_000, token: 'token-2' }, 1_500)).toBe(false);
    expect(await store.takeOver(record.recordKey, { until: 20_000, token: 'token-2' }, 5_000)).toBe(true);
    expect(await store.takeOver(record.recordKey, { until: 30_000, token: 'token-3' }, 5_000)).toBe(false);
    expect(await store.get(record.recordKey)).toMatchObject({ leaseUntil: 20_000, leaseToken: 'token-2' });
  });

  it('releases and refuses only under its own lease, quietly when it has lost it', async () => {
    const { store, record } = fresh();
    await store.begin(record, 1_000);
    const refusal = { code: 'address_unavailable', message: 'taken' };
    await expect(store.release(record.recordKey, 'token-lost')).resolves.toBeUndefined();
    await expect(store.refuse(record.recordKey, 'token-lost', refusal)).resolves.toBeUndefined();
    expect(await store.get(record.recordKey)).toEqual(record);
    await store.release(record.recordKey, 'token-1');
    expect(await store.get(record.recordKey)).toMatchObject({ leaseUntil: 0, status: 'in_progress' });
    await store.refuse(record.recordKey, 'token-1', refusal);
    expect(await store.get(record.recordKey)).toMatchObject({ status: 'refused', refusal });
  });

  it('reads a refused record with its refusal, details and all', async () => {
    const { store, record } = fresh();
    await store.begin(record, 1_000);
    const refusal = { code: 'policy_violation', message: 'no', details: [{ field: 'domain', reason: 'domain_not_allowed' }] };
    await store.refuse(record.recordKey, 'token-1', refusal);
    expect(await store.get(record.recordKey)).toEqual({ ...record, status: 'refused', refusal });
  });

  it('refuses to replan a record whose lease it lost, and replans under its own', async () => {
    const { store, record } = fresh();
    await store.begin(record, 1_000);
    await expect(store.replan(record.recordKey, 'token-lost', { address: 'b@example.test', localPart: 'b' })).rejects.toThrow('lease lost');
    await store.replan(record.recordKey, 'token-1', { address: 'b@example.test', localPart: 'b' });
    expect(await store.get(record.recordKey)).toMatchObject({ address: 'b@example.test', localPart: 'b' });
  });
});
