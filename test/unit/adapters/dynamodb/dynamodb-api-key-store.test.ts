import { DynamoDbApiKeyStore } from '../../../../lambdas/adapters/dynamodb/dynamodb-api-key-store';
import { startLocalTables, type LocalTables } from '../../../support/local-tables';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('keys');
});
afterAll(() => tables.close());

describe('DynamoDbApiKeyStore, on dynalite', () => {
  it('finds a key by hash with a consistent read, so a revocation applies to the very next lookup', async () => {
    const client = tables.client();
    const store = new DynamoDbApiKeyStore(client, tables.names.apiKeys);
    await store.put({ keyHash: 'h1', keyId: 'key_1', accountId: 'acc_1', env: 'local', status: 'active', createdAt: '2026-11-22T12:00:00.000Z' });
    expect(await store.findByHash('h1')).toMatchObject({ keyId: 'key_1', status: 'active' });
    const reads: unknown[] = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'GetItemCommand') reads.push((args.input as { ConsistentRead?: boolean }).ConsistentRead);
        return next(args);
      },
      { step: 'initialize', name: 'testReads' },
    );
    expect(await store.revoke('h1')).toBe(true);
    expect(await store.findByHash('h1')).toMatchObject({ keyId: 'key_1', status: 'revoked' });
    expect(reads).toEqual([true]);
  });

  it("lists an account's keys oldest first, whatever order they were written in, and no other account's", async () => {
    const store = new DynamoDbApiKeyStore(tables.client(), tables.names.apiKeys);
    for (const [n, minute] of [[1, '02'], [2, '00'], [3, '01']] as const) {
      await store.put({ keyHash: `order-${n}`, keyId: `key_o${n}`, accountId: 'acc_order', env: 'local', status: 'active', createdAt: `2026-11-22T12:${minute}:00.000Z` });
    }
    await store.put({ keyHash: 'order-x', keyId: 'key_ox', accountId: 'acc_else', env: 'local', status: 'active', createdAt: '2026-11-22T11:00:00.000Z' });
    expect((await store.listByAccount('acc_order')).map((key) => key.keyId)).toEqual(['key_o2', 'key_o3', 'key_o1']);
  });

  it('reports revoking an unknown key as false, and makes no key of it', async () => {
    const store = new DynamoDbApiKeyStore(tables.client(), tables.names.apiKeys);
    expect(await store.revoke('nope')).toBe(false);
    expect(await store.findByHash('nope')).toBeUndefined();
  });
});
