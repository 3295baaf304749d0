import { DynamoDbAddressRegistry } from '../../../../lambdas/adapters/dynamodb/dynamodb-address-registry';
import { DynamoDbDeliveryReads } from '../../../../lambdas/adapters/dynamodb/dynamodb-delivery-reads';
import { DynamoDbDomainStore } from '../../../../lambdas/adapters/dynamodb/dynamodb-domain-store';
import { DynamoDbEmailStore } from '../../../../lambdas/adapters/dynamodb/dynamodb-email-store';
import { DynamoDbMessageStore } from '../../../../lambdas/adapters/dynamodb/dynamodb-message-store';
import { leaveUnprocessed, sentCommands, startLocalTables, type LocalTables } from '../../../support/local-tables';
import { messageRecord } from '../../../support/message-records';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('delivery');
  const client = tables.client();
  await new DynamoDbDomainStore(client, tables.names.domains).put({ domain: 'example.com', createEnabled: true, receiveEnabled: false });
  await new DynamoDbEmailStore(client, tables.names.emails).create(email);
  const registry = new DynamoDbAddressRegistry(client, tables.names.addresses);
  for (let n = 0; n < 150; n++) await registry.claim({ address: `a${n}@example.com`, emailId: `eml_${n}`, accountId: 'acc_1', claimedAt: email.createdAt });
  await new DynamoDbMessageStore(client, tables.names.messages).put(message);
});
afterAll(() => tables.close());

const email = {
  emailId: 'eml_2',
  accountId: 'acc_1',
  address: 'b@example.com',
  localPart: 'b',
  domain: 'example.com',
  createdAt: '2026-11-01T00:00:00.000Z',
  expiresAt: '2026-12-01T00:00:00.000Z',
};
const message = messageRecord({ messageId: 'msg_1', emailId: 'eml_2' });

describe("DynamoDbDeliveryReads: the delivery path's reads in one BatchGetItem, on dynalite", () => {
  it('reads domains, registry entries, emails and messages in one request, each key once', async () => {
    const client = tables.client();
    const sent = sentCommands(client);
    const reads = new DynamoDbDeliveryReads(client, tables.names);
    const found = await reads.read({
      domains: ['example.com', 'example.com', 'absent.example'],
      addresses: ['a1@example.com', 'a1@example.com'],
      emailIds: ['eml_2', 'eml_absent'],
      messageIds: ['msg_1', 'msg_absent'],
    });
    // DynamoDB refuses a batch that names a key twice: asking once each is what lets the call succeed.
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect([...found.domains.values()]).toEqual([{ domain: 'example.com', createEnabled: true, receiveEnabled: false }]);
    expect([...found.emailIds]).toEqual([['a1@example.com', 'eml_1']]);
    expect([...found.emails.values()]).toEqual([email]);
    expect([...found.messages.values()]).toEqual([message]);
  });

  it('asks again for the keys DynamoDB left unprocessed, and splits more than 100 keys', async () => {
    const client = tables.client();
    const sent = sentCommands(client);
    leaveUnprocessed(client, 'BatchGetItemCommand', { times: 1, count: 1 });
    const addresses = Array.from({ length: 150 }, (_, n) => `a${n}@example.com`);
    const found = await new DynamoDbDeliveryReads(client, tables.names).read({ addresses });
    // dynalite, as DynamoDB, refuses more than 100 keys a call: the 150 need two, and the key left over a third.
    expect(sent).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(found.emailIds.size).toBe(150);
    expect(found.emailIds.get('a0@example.com')).toBe('eml_0');
  });

  it('reads emails and messages consistently, the mail having perhaps just been written', async () => {
    // dynalite reads consistently whatever it is asked: the promise shows only in the request.
    const client = tables.client();
    const asked: Record<string, { ConsistentRead?: boolean }>[] = [];
    client.middlewareStack.add(
      (next) => (args) => {
        asked.push((args.input as { RequestItems: Record<string, { ConsistentRead?: boolean }> }).RequestItems);
        return next(args);
      },
      { step: 'initialize', name: 'testAskedItems' },
    );
    await new DynamoDbDeliveryReads(client, tables.names).read({ domains: ['example.com'], addresses: ['a1@example.com'], emailIds: ['eml_2'], messageIds: ['msg_1'] });
    const consistency = Object.fromEntries(Object.entries(asked[0]!).map(([table, request]) => [table, request.ConsistentRead ?? false]));
    const { domains, addresses, emails, messages } = tables.names;
    expect(consistency).toEqual({ [domains]: false, [addresses]: false, [emails]: true, [messages]: true });
  });

  // Throttling as Unavailable, as every adapter's: test/unit/adapters/storage-errors.test.ts.
});
