import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbMessageStore, expiryPartition, expiryShards } from '../../../../lambdas/adapters/dynamodb/dynamodb-message-store';
import { PermanentStorageFault, Unavailable } from '../../../../lambdas/core/errors';
import type { MessageRecord } from '../../../../lambdas/core/ports/message-store';
import { leaveUnprocessed, sentCommands, startLocalTables, type LocalTables } from '../../../support/local-tables';
import { messageRecord } from '../../../support/message-records';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('messages');
});
afterAll(() => tables.close());

/** A store on a fresh client; `pageItems` cuts every query's page to that many items, as a response cut at 1 MB would be. */
function storeOn(options: { pageItems?: number; client?: DynamoDBDocumentClient } = {}) {
  const client = options.client ?? tables.client();
  const { pageItems } = options;
  let queries = 0;
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName !== 'QueryCommand') return next(args);
      queries += 1;
      const input = args.input as { Limit?: number };
      return next(pageItems === undefined ? args : { ...args, input: { ...input, Limit: Math.min(input.Limit ?? pageItems, pageItems) } });
    },
    { step: 'initialize', name: 'testQueryPages' },
  );
  return { store: new DynamoDbMessageStore(client, tables.names.messages, { unprocessedRetryMs: 1 }), client, queries: () => queries };
}

/** Messages of one email, the newest first: message n was received n seconds before noon. */
async function emailWith(emailId: string, count: number): Promise<MessageRecord[]> {
  const { store } = storeOn();
  const messages = Array.from({ length: count }, (_, n) =>
    messageRecord({
      messageId: `msg_${emailId}_${String(n).padStart(4, '0')}`,
      emailId,
      subject: `s${n}`,
      receivedAt: new Date(Date.parse('2026-11-22T12:00:00.000Z') - n * 1000).toISOString(),
      attachmentCount: n,
    }),
  );
  for (const message of messages) await store.put(message);
  return messages;
}

const page = { receivedAfter: '2026-11-22T11:00:00.000Z', limit: 5 };
const subjects = (result: { items: { subject: string }[] }) => result.items.map((item) => item.subject);

describe('DynamoDbMessageStore listing an email', () => {
  it('keeps querying after a response cut short until the page is full', async () => {
    await emailWith('eml_cut', 10);
    const { store, queries } = storeOn({ pageItems: 2 });
    const result = await store.listByEmail('eml_cut', page);
    expect(subjects(result)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(result.next).toBe(`${result.items[4]!.receivedAt}#${result.items[4]!.messageId}`);
    expect(queries()).toBeGreaterThan(2);
  });

  it('says there is more only when a further item really exists', async () => {
    // The page fills exactly and DynamoDB still hands back a position: one more query must look.
    await emailWith('eml_exact', 5);
    const { store, queries } = storeOn({ pageItems: 5 });
    const result = await store.listByEmail('eml_exact', page);
    expect(result.items).toHaveLength(5);
    expect(result.next).toBeUndefined();
    expect(queries()).toBe(2);
  });

  it('ends the listing when the query is exhausted, however short the responses were', async () => {
    await emailWith('eml_short', 3);
    const { store } = storeOn({ pageItems: 1 });
    const result = await store.listByEmail('eml_short', page);
    expect(subjects(result)).toEqual(['s0', 's1', 's2']);
    expect(result.next).toBeUndefined();
  });

  it('continues a later page from the cursor position, and leaves out what came before receivedAfter', async () => {
    await emailWith('eml_pages', 12);
    const { store } = storeOn();
    const first = await store.listByEmail('eml_pages', page);
    // Between message 10 (11:59:50) and message 9 (11:59:51): the last two are too old for this listing.
    const second = await store.listByEmail('eml_pages', { ...page, after: first.next, receivedAfter: '2026-11-22T11:59:50.500Z' });
    expect(subjects(first)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(subjects(second)).toEqual(['s5', 's6', 's7', 's8', 's9']);
    expect(second.next).toBeUndefined();
  });

  it('lists from the projected fields alone, attachment count included', async () => {
    const [, message] = await emailWith('eml_fields', 2);
    const { store } = storeOn();
    const [, item] = (await store.listByEmail('eml_fields', page)).items;
    expect(item).toEqual({
      messageId: message!.messageId,
      emailId: 'eml_fields',
      from: message!.from,
      to: message!.to,
      subject: 's1',
      receivedAt: message!.receivedAt,
      expiresAt: message!.expiresAt,
      sizeBytes: message!.sizeBytes,
      attachmentCount: 1,
    });
  });
});

describe('DynamoDbMessageStore for the sweeper', () => {
  /** A message id whose by_expiry partition is the given shard of its expiry hour. */
  function idInShard(shard: number, expiresAt: string, label: string): string {
    for (let n = 0; ; n++) {
      const messageId = `msg_${label}_${n}`;
      if (expiryPartition(expiresAt, messageId) === `${expiresAt.slice(0, 13)}#${shard}`) return messageId;
    }
  }
  /** Stores a message expiring at `expiresAt` in the given shard; returns its id. */
  async function expiringIn(shard: number, expiresAt: string, label: string): Promise<string> {
    const messageId = idInShard(shard, expiresAt, label);
    await storeOn().store.put(messageRecord({ messageId, mailId: `mail_${label}`, rawKey: `mail/mail_${label}/raw`, expiresAt }));
    return messageId;
  }

  it('reads every shard of every hour of the window, following continuations within a shard', async () => {
    const ids = [
      await expiringIn(3, '2026-11-23T12:15:00.000Z', 'a'),
      await expiringIn(3, '2026-11-23T12:20:00.000Z', 'b'),
      await expiringIn(15, '2026-11-23T13:10:00.000Z', 'c'),
      await expiringIn(7, '2026-11-23T13:20:00.000Z', 'd'),
    ];
    await expiringIn(7, '2026-11-23T13:40:00.000Z', 'after-the-window');
    const { store, queries } = storeOn({ pageItems: 1 });
    const { messages, moreFrom } = await store.expiring(new Date('2026-11-23T12:00:00.000Z'), new Date('2026-11-23T13:30:00.000Z'), 1_000);
    expect(messages.map((message) => message.messageId)).toEqual(ids);
    expect(messages[0]).toEqual({ messageId: ids[0], mailId: 'mail_a', rawKey: 'mail/mail_a/raw', expiresAt: '2026-11-23T12:15:00.000Z' });
    expect(moreFrom).toBeUndefined();
    // Every shard of both hours at least once, and the shards holding messages again after each page.
    expect(queries()).toBeGreaterThanOrEqual(2 * expiryShards + ids.length);
  });

  it('reads at most the limit, each shard its share, and says from when the rest expires', async () => {
    const at = (minute: number) => `2026-11-24T12:${String(minute).padStart(2, '0')}:00.000Z`;
    // Limit 20 over 16 shards: a share of 2 each. Shard 0 holds 3, so its third is held back;
    // shard 1 holds exactly its share, which is no sign of more.
    const crowded = [await expiringIn(0, at(5), 'c1'), await expiringIn(0, at(6), 'c2')];
    await expiringIn(0, at(7), 'c3');
    const exact = [await expiringIn(1, at(1), 'e1'), await expiringIn(1, at(2), 'e2')];
    await expiringIn(4, '2026-11-24T13:05:00.000Z', 'next-hour');
    const { messages, moreFrom } = await storeOn().store.expiring(new Date(at(0)), new Date('2026-11-24T13:30:00.000Z'), 20);
    expect(messages.map((message) => message.messageId)).toEqual([...exact, ...crowded]);
    // The next hour was not read: the window goes on from shard 0's held-back message.
    expect(moreFrom).toBe(at(7));
  });

  it('returns the oldest of what it read when the shards together hold more than the limit', async () => {
    const oldest = await expiringIn(4, '2026-11-25T12:04:00.000Z', 'old');
    await expiringIn(9, '2026-11-25T12:09:00.000Z', 'young');
    const { messages, moreFrom } = await storeOn().store.expiring(new Date('2026-11-25T12:00:00.000Z'), new Date('2026-11-25T12:30:00.000Z'), 1);
    expect(messages.map((message) => message.messageId)).toEqual([oldest]);
    expect(moreFrom).toBe('2026-11-25T12:09:00.000Z');
  });

  it('spreads the messages of one hour over all 16 shards, each message always into the same one', () => {
    const partitions = Array.from({ length: 1_000 }, (_, n) => expiryPartition('2026-11-22T12:15:00.000Z', `msg_${n.toString(36).padStart(12, '0')}`));
    const counts = new Map<string, number>();
    for (const partition of partitions) counts.set(partition, (counts.get(partition) ?? 0) + 1);
    expect(counts.size).toBe(expiryShards);
    for (const count of counts.values()) expect(count).toBeGreaterThan(1_000 / expiryShards / 2);
    expect(expiryPartition('2026-11-22T12:15:00.000Z', 'msg_abc')).toBe(expiryPartition('2026-11-22T12:59:00.000Z', 'msg_abc'));
    expect(expiryPartition('2026-11-22T12:15:00.000Z', 'msg_abc')).toMatch(/^2026-11-22T12#([0-9]|1[0-5])$/);
  });
});

describe('DynamoDbMessageStore deleting expired messages', () => {
  async function stored(label: string, count: number): Promise<string[]> {
    const { store } = storeOn();
    const ids = Array.from({ length: count }, (_, n) => `msg_${label}_${n}`);
    for (const messageId of ids) await store.put(messageRecord({ messageId }));
    return ids;
  }
  async function kept(ids: string[]): Promise<string[]> {
    const { store } = storeOn();
    const found = await Promise.all(ids.map((id) => store.get(id)));
    return ids.filter((_, n) => found[n] !== undefined);
  }

  it('deletes 25 messages a call (DynamoDB refuses more), the last call taking the rest', async () => {
    const ids = await stored('batch', 60);
    const client = tables.client();
    const sent = sentCommands(client);
    await storeOn({ client }).store.deleteMany(ids);
    expect(await kept(ids)).toEqual([]);
    expect(sent).toEqual(['BatchWriteItemCommand', 'BatchWriteItemCommand', 'BatchWriteItemCommand']);
  });

  it('sends again what DynamoDB left unprocessed, until none is left', async () => {
    const ids = await stored('unprocessed', 10);
    const client = tables.client();
    const sent = sentCommands(client);
    leaveUnprocessed(client, 'BatchWriteItemCommand', { times: 2, count: 2 });
    await storeOn({ client }).store.deleteMany(ids);
    expect(await kept(ids)).toEqual([]);
    expect(sent).toHaveLength(3);
  });

  // A throttled call as 503 Unavailable: test/unit/adapters/storage-errors.test.ts.
  it('throws when deletes stay unprocessed after 8 calls, having deleted the rest', async () => {
    const ids = await stored('stuck', 3);
    const client = tables.client();
    const sent = sentCommands(client);
    leaveUnprocessed(client, 'BatchWriteItemCommand', { times: 100, count: 1 });
    await expect(storeOn({ client }).store.deleteMany(ids)).rejects.toBeInstanceOf(Unavailable);
    expect(sent).toHaveLength(8);
    expect(await kept(ids)).toEqual([ids[0]]);
  });
});

describe('DynamoDbMessageStore writing a message', () => {
  it('keeps a large attachment list in the blob store and reads it back as stored', async () => {
    const message = messageRecord({ messageId: 'msg_large', attachmentCount: 900, attachments: { blobKey: 'mail/mail_1/attachments', sizeBytes: 370_000 } });
    const { store } = storeOn();
    expect(await store.put(message)).toBe('created');
    expect(await store.get('msg_large')).toEqual(message);
    expect(await store.get('msg_large', { consistent: true })).toEqual(message);
  });

  it('writes a message once: the same delivery again leaves the first as it was', async () => {
    const first = messageRecord({ messageId: 'msg_once' });
    const { store } = storeOn();
    expect(await store.put(first)).toBe('created');
    expect(await store.put({ ...first, subject: 'delivered again' })).toBe('exists');
    expect(await store.get('msg_once')).toEqual(first);
  });

  it('refuses an item over 400 KB counted in UTF-8 bytes, as DynamoDB does, before sending it', async () => {
    // 140,000 characters but 420,000 bytes: dynalite would store it, DynamoDB would not.
    const wide = messageRecord({ messageId: 'msg_wide', text: { inline: '€'.repeat(140_000) } });
    const client = tables.client();
    const sent = sentCommands(client);
    await expect(storeOn({ client }).store.put(wide)).rejects.toEqual(new PermanentStorageFault('item_too_large'));
    expect(sent).toEqual([]);
    expect(await storeOn().store.get('msg_wide')).toBeUndefined();
  });
  // DynamoDB's ValidationException and a throttle: test/unit/adapters/storage-errors.test.ts.
});
