import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbAddressRegistry } from '../../../lambdas/adapters/dynamodb/dynamodb-address-registry';
import { DynamoDbEmailStore } from '../../../lambdas/adapters/dynamodb/dynamodb-email-store';
import { startLocalTables, type LocalTables } from '../../support/local-tables';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('emails');
});
afterAll(() => tables.close());

describe('DynamoDbEmailStore, on dynalite', () => {
  const email = {
    emailId: 'eml_1234567890',
    accountId: 'acc_1',
    address: 'a@example.test',
    localPart: 'a',
    domain: 'example.test',
    createdAt: '2026-11-22T12:00:00.000Z',
    expiresAt: '2026-12-22T12:00:00.000Z',
  };

  it('creates once and reads back what it wrote, with a TTL a week after the reservation ends', async () => {
    const client = tables.client();
    const store = new DynamoDbEmailStore(client, tables.names.emails);
    expect(await store.create(email)).toBe('created');
    expect(await store.get(email.emailId)).toEqual(email);
    const { Item } = await client.send(new GetCommand({ TableName: tables.names.emails, Key: { email_id: email.emailId } }));
    expect(Item!.ttl).toBe(Date.parse(email.expiresAt) / 1000 + 7 * 24 * 3600);
  });

  it('reports an email already stored by an earlier attempt as exists, and keeps the first', async () => {
    const store = new DynamoDbEmailStore(tables.client(), tables.names.emails);
    const first = { ...email, emailId: 'eml_first' };
    await store.create(first);
    expect(await store.create({ ...first, address: 'b@example.test', localPart: 'b' })).toBe('exists');
    expect(await store.get(first.emailId)).toEqual(first);
  });
});

describe('DynamoDbAddressRegistry, on dynalite', () => {
  const entry = { address: 'a@example.test', emailId: 'eml_mine', accountId: 'acc_1', claimedAt: 'now' };

  it('claims an address that was never issued, and finds it by lookup', async () => {
    const registry = new DynamoDbAddressRegistry(tables.client(), tables.names.addresses);
    const fresh = { ...entry, address: 'fresh@example.test' };
    expect(await registry.lookup(fresh.address)).toBeUndefined();
    expect(await registry.claim(fresh)).toEqual({ outcome: 'claimed' });
    expect(await registry.lookup(fresh.address)).toBe('eml_mine');
  });

  it('recognizes its own earlier claim, and refuses anybody else, naming the holder', async () => {
    const registry = new DynamoDbAddressRegistry(tables.client(), tables.names.addresses);
    expect(await registry.claim(entry)).toEqual({ outcome: 'claimed' });
    expect(await registry.claim(entry)).toEqual({ outcome: 'claimed' });
    expect(await registry.claim({ ...entry, emailId: 'eml_other' })).toEqual({ outcome: 'taken', heldBy: 'eml_mine' });
    expect(await registry.lookup(entry.address)).toBe('eml_mine');
  });
});

// The idempotency store's promises: test/unit/adapters/dynamodb/dynamodb-idempotency-store.test.ts, on dynalite.
