import { createStores } from '../../../lambdas/composition/services';
import { createEmail } from '../../../lambdas/core/emails';
import { Unavailable } from '../../../lambdas/core/errors';
import { idempotencyRecordKey } from '../../../lambdas/core/idempotency';
import { startLocalTables, type LocalTables } from '../../support/local-tables';
import { storageFaults } from '../../support/storage-faults';
import { TestClock } from '../../support/test-clock';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('create');
  await createStores({ tableNames: tables.names, client: tables.client() }).domains.put({ domain: 'example.test', createEnabled: true, receiveEnabled: true });
});
afterAll(() => tables.close());

/** The stores over a fresh client on dynalite, with storage faults to inject and every write's table seen. */
function deps() {
  const client = tables.client();
  const faults = storageFaults();
  faults.instrument(client);
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(`${String(context.commandName)}:${String((args.input as { TableName?: string }).TableName)}`);
      return next(args);
    },
    { step: 'initialize', name: 'testSentCommands' },
  );
  const stores = createStores({ tableNames: tables.names, client });
  return { faults, sent, deps: { ...stores, clock: new TestClock(), emailTtlSeconds: 2_592_000 } };
}

const request = (localPart: string) => ({ accountId: 'acc_1', idempotencyKey: `unit-fault-key-${localPart}`, localPart, domain: 'example.test' });

describe('createEmail over DynamoDB when storage fails', () => {
  it('gives up its lease, keeping its plan and its claim, when the email write is throttled: the retry resumes at once', async () => {
    const { faults, deps: first } = deps();
    faults.fail({ command: 'PutItemCommand', table: '-emails', times: 1 });
    await expect(createEmail(request('lease'), first)).rejects.toBeInstanceOf(Unavailable);

    const record = await first.idempotency.get(idempotencyRecordKey('acc_1', 'createEmail', 'unit-fault-key-lease'));
    expect(record).toMatchObject({ status: 'in_progress', address: 'lease@example.test' });
    expect(record!.leaseUntil).toBeLessThanOrEqual(first.clock.now().getTime());
    expect(await first.registry.lookup('lease@example.test')).toBe(record!.emailId);

    // Same clock, no wait: a held lease would make the retry wait or conflict.
    const retried = await createEmail(request('lease'), { ...deps().deps, clock: first.clock });
    expect(retried).toMatchObject({ replayed: false, email: { emailId: record!.emailId, address: 'lease@example.test' } });
  });

  it('claims nothing when the idempotency record cannot be written', async () => {
    const { faults, sent, deps: d } = deps();
    faults.fail({ command: 'PutItemCommand', table: '-idempotency', times: 1 });
    await expect(createEmail(request('norecord'), d)).rejects.toBeInstanceOf(Unavailable);
    expect(await d.registry.lookup('norecord@example.test')).toBeUndefined();
    expect(await d.idempotency.get(idempotencyRecordKey('acc_1', 'createEmail', 'unit-fault-key-norecord'))).toBeUndefined();
    expect(sent.filter((call) => !call.startsWith('Get') && (call.endsWith('-emails') || call.endsWith('-addresses')))).toEqual([]);
  });

  it('completes the record only after the email is stored', async () => {
    const { sent, deps: d } = deps();
    const result = await createEmail(request('order'), d);
    const order = [...sent];
    expect(result).toMatchObject({ replayed: false, email: { address: 'order@example.test' } });
    expect(await d.emails.get(result.email.emailId)).toMatchObject({ address: 'order@example.test' });
    expect(await d.idempotency.get(idempotencyRecordKey('acc_1', 'createEmail', 'unit-fault-key-order'))).toMatchObject({ status: 'completed' });
    const { idempotency, domains, addresses, emails } = tables.names;
    expect(order).toEqual([
      `PutItemCommand:${idempotency}`,
      `GetItemCommand:${domains}`,
      `PutItemCommand:${addresses}`,
      `PutItemCommand:${emails}`,
      `UpdateItemCommand:${idempotency}`,
    ]);
  });
});
