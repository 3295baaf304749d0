import { DynamoDbDomainStore } from '../../../../lambdas/adapters/dynamodb/dynamodb-domain-store';
import { startLocalTables, type LocalTables } from '../../../support/local-tables';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('domains');
});
afterAll(() => tables.close());

describe('DynamoDbDomainStore, on dynalite', () => {
  it('lists every page of the table, however the scan is cut', async () => {
    const client = tables.client();
    // A page of one item, as a table past 1 MB would give: the listing must follow LastEvaluatedKey.
    let scans = 0;
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'ScanCommand') {
          scans += 1;
          return next({ ...args, input: { ...(args.input as object), Limit: 1 } });
        }
        return next(args);
      },
      { step: 'initialize', name: 'testOneItemPages' },
    );
    const store = new DynamoDbDomainStore(client, tables.names.domains);
    const names = ['a.test', 'b.test', 'c.test'];
    for (const domain of names) await store.put({ domain, createEnabled: domain !== 'b.test', receiveEnabled: true });
    const listed = await store.list();
    expect(listed.map((domain) => domain.domain).sort()).toEqual(names);
    expect(listed.find((domain) => domain.domain === 'b.test')).toEqual({ domain: 'b.test', createEnabled: false, receiveEnabled: true });
    expect(scans).toBeGreaterThanOrEqual(3);
  });
});
