import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbAccountStore } from '../../../../lambdas/adapters/dynamodb/dynamodb-account-store';
import { Unavailable } from '../../../../lambdas/core/errors';
import type { Account } from '../../../../lambdas/core/ports/account-store';
import type { Admission } from '../../../../lambdas/core/ports/ledger';
import { startLocalTables, type LocalTables } from '../../../support/local-tables';
import { accountFixture } from '../../../support/port-stubs';
import { storageFaults } from '../../../support/storage-faults';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('accounts');
});
afterAll(() => tables.close());

let next = 0;
/** A store over a fresh client, and a fresh account in it (each test its own id). */
async function accountWith(overrides: Partial<Account> = {}, client: DynamoDBDocumentClient = tables.client()) {
  const store = new DynamoDbAccountStore(client, tables.names.accounts);
  const accountId = `acc_${String(next++).padStart(4, '0')}`;
  await store.create(accountFixture({ accountId, ...overrides }));
  return { store, accountId, client };
}

const allowance = (remaining: number) => ({ base: 100, additional: 0, remaining });
const admission = (overrides: Partial<Admission> = {}, window: Partial<Admission['window']> = {}): Admission => ({
  keyId: 'key_1',
  charge: true,
  ...overrides,
  window: { id: 1000, perKey: 300, perAccount: 600, ...window },
});

/** Records the commands a client sends, with their input, as they leave for dynalite. */
function sentCommands(client: DynamoDBDocumentClient) {
  const sent: { command: string; input: Record<string, unknown> }[] = [];
  client.middlewareStack.add(
    (nextHandler, context) => (args) => {
      sent.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
      return nextHandler(args);
    },
    { step: 'initialize', name: 'testSentCommands' },
  );
  return sent;
}

describe('DynamoDbAccountStore as the ledger, on dynalite', () => {
  it('takes one unit per charged admission and never goes below zero: the next is exhausted and changes nothing', async () => {
    const { store, accountId } = await accountWith({ allowance: allowance(2) });
    expect(await store.reserve(accountId, admission())).toMatchObject({ outcome: 'reserved', account: { allowance: { remaining: 1 } } });
    expect(await store.reserve(accountId, admission())).toMatchObject({ outcome: 'reserved', account: { allowance: { remaining: 0 } } });
    expect(await store.reserve(accountId, admission())).toMatchObject({ outcome: 'exhausted', account: { allowance: { remaining: 0 } } });
    expect((await store.get(accountId))!.allowance.remaining).toBe(0);
  });

  it('holds under concurrent admissions: of 20 at once on 5 units, exactly 5 are reserved', async () => {
    const { store, accountId } = await accountWith({ allowance: allowance(5) });
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => store.reserve(accountId, admission({ keyId: `key_${i}` }))));
    expect(outcomes.filter((o) => o.outcome === 'reserved')).toHaveLength(5);
    expect(outcomes.filter((o) => o.outcome === 'exhausted')).toHaveLength(15);
    expect((await store.get(accountId))!.allowance.remaining).toBe(0);
  });

  it('leaves the allowance alone for an uncharged operation, even at zero', async () => {
    const { store, accountId } = await accountWith({ allowance: allowance(0) });
    expect(await store.reserve(accountId, admission({ charge: false }))).toMatchObject({ outcome: 'reserved' });
    expect((await store.get(accountId))!.allowance).toEqual(allowance(0));
  });

  it('refuses a suspended account, taking nothing', async () => {
    const { store, accountId } = await accountWith({ status: 'suspended', allowance: allowance(5) });
    expect(await store.reserve(accountId, admission())).toEqual({ outcome: 'suspended' });
    expect((await store.get(accountId))!.allowance.remaining).toBe(5);
  });

  it('explains a missing account as absent', async () => {
    const store = new DynamoDbAccountStore(tables.client(), tables.names.accounts);
    expect(await store.reserve('acc_missing', admission())).toEqual({ outcome: 'absent' });
  });

  it('limits the account’s window across its keys, and each key’s, refusing without charging', async () => {
    const { store, accountId } = await accountWith({ allowance: allowance(10) });
    const window = { perAccount: 3, perKey: 2 };
    expect(await store.reserve(accountId, admission({ keyId: 'key_a' }, window))).toMatchObject({ outcome: 'reserved' });
    expect(await store.reserve(accountId, admission({ keyId: 'key_a' }, window))).toMatchObject({ outcome: 'reserved' });
    expect(await store.reserve(accountId, admission({ keyId: 'key_a' }, window))).toMatchObject({ outcome: 'rate_limited', scope: 'key' });
    expect(await store.reserve(accountId, admission({ keyId: 'key_b' }, window))).toMatchObject({ outcome: 'reserved' });
    expect(await store.reserve(accountId, admission({ keyId: 'key_c' }, window))).toMatchObject({ outcome: 'rate_limited', scope: 'account' });
    expect((await store.get(accountId))!.allowance.remaining).toBe(7);
  });

  it('starts a new window when the minute has moved on: the full counts of the last one no longer refuse', async () => {
    const { store, accountId } = await accountWith();
    const window = { perAccount: 1, perKey: 1 };
    expect(await store.reserve(accountId, admission({}, { ...window, id: 1000 }))).toMatchObject({ outcome: 'reserved' });
    expect(await store.reserve(accountId, admission({}, { ...window, id: 1000 }))).toMatchObject({ outcome: 'rate_limited' });
    expect(await store.reserve(accountId, admission({}, { ...window, id: 1001 }))).toMatchObject({ outcome: 'reserved' });
    expect(await store.reserve(accountId, admission({ keyId: 'key_2' }, { ...window, id: 1001 }))).toMatchObject({ outcome: 'rate_limited', scope: 'account' });
  });

  it('explains a failed condition with one consistent read, and writes nothing more', async () => {
    const client = tables.client();
    const { store, accountId } = await accountWith({ allowance: allowance(0) }, client);
    const sent = sentCommands(client);
    expect(await store.reserve(accountId, admission())).toMatchObject({ outcome: 'exhausted' });
    expect(sent.map((call) => call.command)).toEqual(['UpdateItemCommand', 'GetItemCommand']);
    expect(sent[1]!.input.ConsistentRead).toBe(true);
  });

  it('tries again when a refund lands between the failed condition and its explaining read', async () => {
    const client = tables.client();
    const { store, accountId } = await accountWith({ allowance: allowance(0) }, client);
    const other = new DynamoDbAccountStore(tables.client(), tables.names.accounts);
    let refunded = false;
    client.middlewareStack.add(
      (nextHandler, context) => async (args) => {
        if (context.commandName === 'GetItemCommand' && !refunded) {
          refunded = true;
          await other.refund(accountId);
        }
        return nextHandler(args);
      },
      { step: 'initialize', name: 'testRefundRace' },
    );
    expect(await store.reserve(accountId, admission())).toMatchObject({ outcome: 'reserved', account: { allowance: { remaining: 0 } } });
    expect(refunded).toBe(true);
  });

  it('turns a throttled write into 503 Unavailable', async () => {
    const client = tables.client();
    const { store, accountId } = await accountWith({}, client);
    const faults = storageFaults();
    faults.instrument(client);
    faults.fail({ command: 'UpdateItemCommand', table: '-accounts', times: 2 });
    await expect(store.reserve(accountId, admission())).rejects.toBeInstanceOf(Unavailable);
    await expect(store.refund(accountId)).rejects.toBeInstanceOf(Unavailable);
    expect((await store.get(accountId))!.allowance.remaining).toBe(100);
  });

  it('lets an unexpected error through unchanged', async () => {
    const client = tables.client();
    const { store, accountId } = await accountWith({}, client);
    client.middlewareStack.add(
      () => () => Promise.reject(new Error('ValidationException: bad key')),
      { step: 'initialize', name: 'testUnexpected' },
    );
    await expect(store.get(accountId)).rejects.toThrow('ValidationException');
  });

  it('refunds one unit of an existing account, and never makes an account by refunding', async () => {
    const { store, accountId } = await accountWith({ allowance: allowance(4) });
    await store.refund(accountId);
    expect((await store.get(accountId))!.allowance.remaining).toBe(5);
    await store.refund('acc_never');
    expect(await store.get('acc_never')).toBeUndefined();
  });

  it('grants to remaining and additional together, and reports an absent account without making one', async () => {
    const { store, accountId } = await accountWith({ allowance: allowance(0) });
    expect(await store.grant(accountId, 50)).toEqual({ base: 100, additional: 50, remaining: 50 });
    expect(await store.grant('acc_absent', 50)).toBeUndefined();
    expect(await store.get('acc_absent')).toBeUndefined();
  });

  it('never overwrites an existing account on create', async () => {
    const { store, accountId } = await accountWith({ plan: 'paid', allowance: allowance(7) });
    await expect(store.create(accountFixture({ accountId, plan: 'free', allowance: allowance(100) }))).rejects.toThrow();
    expect(await store.get(accountId)).toMatchObject({ plan: 'paid', allowance: { remaining: 7 } });
    expect(await store.createIfAbsent(accountFixture({ accountId }))).toBe(false);
  });
});
