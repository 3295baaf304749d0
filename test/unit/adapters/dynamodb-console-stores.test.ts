import { DynamoDbAccountStore } from '../../../lambdas/adapters/dynamodb/dynamodb-account-store';
import { DynamoDbEmailStore } from '../../../lambdas/adapters/dynamodb/dynamodb-email-store';
import { DynamoDbIdentityStore } from '../../../lambdas/adapters/dynamodb/dynamodb-identity-store';
import { startLocalTables, type LocalTables, sentCommands } from '../../support/local-tables';
import { accountFixture } from '../../support/port-stubs';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('console');
});
afterAll(() => tables.close());

let next = 0;
const uniqueId = (prefix: string) => `${prefix}_${String(next++).padStart(4, '0')}`;

describe('DynamoDbIdentityStore, on dynalite', () => {
  it('claims an identity once, and answers the account of the earlier claim to a later one', async () => {
    const store = new DynamoDbIdentityStore(tables.client(), tables.names.identities);
    const entry = { identity: '["https://issuer","sub-1"]', accountId: 'acc_first', createdAt: '2026-11-22T12:00:00.000Z' };
    expect(await store.claim(entry)).toBe('acc_first');
    expect(await store.claim({ ...entry, accountId: 'acc_new' })).toBe('acc_first');
  });
});

describe('DynamoDbAccountStore key-change window, on dynalite', () => {
  async function account(client = tables.client()) {
    const store = new DynamoDbAccountStore(client, tables.names.accounts);
    const accountId = uniqueId('acc');
    await store.create(accountFixture({ accountId }));
    return { store, accountId, client };
  }

  it('counts changes in the current hour up to the limit, then refuses; a new hour starts again', async () => {
    const { store, accountId } = await account();
    expect(await store.admitKeyChange(accountId, { id: 7, limit: 2 })).toBe(true);
    expect(await store.admitKeyChange(accountId, { id: 7, limit: 2 })).toBe(true);
    expect(await store.admitKeyChange(accountId, { id: 7, limit: 2 })).toBe(false);
    expect(await store.admitKeyChange(accountId, { id: 8, limit: 2 })).toBe(true);
  });

  it('admits exactly the limit of concurrent changes', async () => {
    const { store, accountId } = await account();
    const admitted = await Promise.all(Array.from({ length: 8 }, () => store.admitKeyChange(accountId, { id: 9, limit: 3 })));
    expect(admitted.filter(Boolean)).toHaveLength(3);
  });

  it('counts in the window a concurrent request opened when it loses the race to open it', async () => {
    const { store, accountId, client } = await account();
    const other = new DynamoDbAccountStore(tables.client(), tables.names.accounts);
    let raced = false;
    // Just before this store opens the hour, another request opens it and counts one change.
    client.middlewareStack.add(
      (nextHandler) => async (args) => {
        const update = (args.input as { UpdateExpression?: string }).UpdateExpression ?? '';
        if (!raced && update.startsWith('SET key_win = ')) {
          raced = true;
          expect(await other.admitKeyChange(accountId, { id: 10, limit: 2 })).toBe(true);
        }
        return nextHandler(args);
      },
      { step: 'initialize', name: 'testOpenRace' },
    );
    expect(await store.admitKeyChange(accountId, { id: 10, limit: 2 })).toBe(true);
    expect(raced).toBe(true);
    // Both changes counted in one window: a third is refused.
    expect(await other.admitKeyChange(accountId, { id: 10, limit: 2 })).toBe(false);
  });

  it("records the key's last use in the admission's own write", async () => {
    const { store, accountId, client } = await account();
    const admission = { keyId: 'key_1', charge: true, window: { id: 5, perKey: 300, perAccount: 600 } };
    // The first admission of the minute opens its window; the one measured below finds it open.
    await store.reserve(accountId, { ...admission, at: '2026-11-22T11:59:00.000Z' });
    const sent = sentCommands(client);
    const at = '2026-11-22T12:00:00.000Z';
    const outcome = await store.reserve(accountId, { ...admission, at });
    expect(outcome).toMatchObject({ outcome: 'reserved', account: { keyLastUsed: { key_1: at } } });
    expect(sent).toEqual(['UpdateItemCommand']);
    expect((await store.get(accountId))!.keyLastUsed).toMatchObject({ key_1: at });
  });
});

describe('DynamoDbEmailStore by account, on dynalite', () => {
  it('lists an account newest first, a page at a time, naming the next position only when one exists', async () => {
    const store = new DynamoDbEmailStore(tables.client(), tables.names.emails);
    const accountId = uniqueId('acc');
    for (const n of [1, 2, 3]) {
      await store.create({
        emailId: `eml_${accountId}_${n}`,
        accountId,
        address: `a${n}@x.test`,
        localPart: `a${n}`,
        domain: 'x.test',
        createdAt: `2026-11-22T12:00:0${n}.000Z`,
        expiresAt: '2026-12-22T12:00:00.000Z',
      });
    }
    await store.create({ emailId: 'eml_elsewhere', accountId: 'acc_other', address: 'z@x.test', localPart: 'z', domain: 'x.test', createdAt: '2026-11-22T12:00:09.000Z', expiresAt: '2026-12-22T12:00:00.000Z' });
    const page = await store.listByAccount(accountId, { limit: 2 });
    expect(page.items.map((email) => email.localPart)).toEqual(['a3', 'a2']);
    expect(page.next).toBe(JSON.stringify(['2026-11-22T12:00:02.000Z', `eml_${accountId}_2`]));
    const last = await store.listByAccount(accountId, { limit: 2, after: page.next! });
    expect(last.items.map((email) => email.localPart)).toEqual(['a1']);
    expect(last.next).toBeUndefined();
    const whole = await store.listByAccount(accountId, { limit: 3 });
    expect(whole.items).toHaveLength(3);
    expect(whole.next).toBeUndefined();
  });
});
