import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { createDocumentClient } from '../../../lambdas/adapters/dynamodb/document-client';
import { DynamoDbMessageStore, expiryPartition, expiryShards } from '../../../lambdas/adapters/dynamodb/dynamodb-message-store';
import { PermanentStorageFault, Unavailable } from '../../../lambdas/core/errors';
import { messageRecord } from '../../support/message-records';

const dynamo = mockClient(DynamoDBDocumentClient);
const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9' });
const store = new DynamoDbMessageStore(client, 'messages');

/** A by_email index entry as DynamoDB returns it: keys and the listing's projected fields. */
function indexEntry(n: number) {
  const messageId = `msg_${String(n).padStart(12, '0')}`;
  const receivedAt = new Date(Date.parse('2026-11-22T12:00:00.000Z') - n * 1000).toISOString();
  return {
    message_id: messageId,
    email_id: 'eml_1',
    received_sort: `${receivedAt}#${messageId}`,
    from: 'a@example.org',
    to: ['x@tempmail.localhost'],
    subject: `s${n}`,
    received_at: receivedAt,
    expires_at: '2026-11-22T12:15:00.000Z',
    size_bytes: 10,
    attachment_count: 1,
  };
}
const entries = Array.from({ length: 10 }, (_, n) => indexEntry(n));
/** What DynamoDB gives back as the position after an index entry. */
const positionAfter = (entry: ReturnType<typeof indexEntry>) => ({
  message_id: entry.message_id,
  email_id: entry.email_id,
  received_sort: entry.received_sort,
});

beforeEach(() => dynamo.reset());

describe('DynamoDbMessageStore listing an email', () => {
  const page = { receivedAfter: '2026-11-22T11:00:00.000Z', limit: 5 };

  it('keeps querying after a response cut short at 1 MB until the page is full', async () => {
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: entries.slice(0, 2), LastEvaluatedKey: positionAfter(entries[1]!) })
      .resolvesOnce({ Items: entries.slice(2, 3), LastEvaluatedKey: positionAfter(entries[2]!) })
      .resolvesOnce({ Items: entries.slice(3, 6), LastEvaluatedKey: positionAfter(entries[5]!) });
    const result = await store.listByEmail('eml_1', page);
    expect(result.items.map((item) => item.subject)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(result.next).toBe(entries[4]!.received_sort);
    const inputs = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(inputs).toHaveLength(3);
    // Each query asks only for what is still missing, plus one to learn whether more exist.
    expect(inputs.map((input) => input.Limit)).toEqual([6, 4, 3]);
    expect(inputs.map((input) => input.ExclusiveStartKey)).toEqual([undefined, positionAfter(entries[1]!), positionAfter(entries[2]!)]);
    for (const input of inputs) expect(input).toMatchObject({ IndexName: 'by_email', ScanIndexForward: false });
  });

  it('says there is more only when a further item really exists', async () => {
    // The page fills exactly and DynamoDB still hands back a position: one more query must look.
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: entries.slice(0, 5), LastEvaluatedKey: positionAfter(entries[4]!) })
      .resolvesOnce({ Items: [] });
    const result = await store.listByEmail('eml_1', page);
    expect(result.items).toHaveLength(5);
    expect(result.next).toBeUndefined();
    expect(dynamo.commandCalls(QueryCommand)[1]!.args[0].input).toMatchObject({ Limit: 1, ExclusiveStartKey: positionAfter(entries[4]!) });
  });

  it('ends the listing when the query is exhausted, however short the responses were', async () => {
    dynamo
      .on(QueryCommand)
      .resolvesOnce({ Items: [], LastEvaluatedKey: positionAfter(entries[0]!) })
      .resolvesOnce({ Items: entries.slice(0, 1), LastEvaluatedKey: positionAfter(entries[0]!) })
      .resolvesOnce({ Items: entries.slice(1, 3) });
    const result = await store.listByEmail('eml_1', page);
    expect(result.items.map((item) => item.subject)).toEqual(['s0', 's1', 's2']);
    expect(result.next).toBeUndefined();
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(3);
  });

  it('continues a later page from the cursor position', async () => {
    dynamo.on(QueryCommand).resolvesOnce({ Items: entries.slice(5, 10) });
    const result = await store.listByEmail('eml_1', { ...page, after: entries[4]!.received_sort });
    expect(result.items).toHaveLength(5);
    expect(result.next).toBeUndefined();
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input.ExclusiveStartKey).toEqual(positionAfter(entries[4]!));
  });

  it('lists from the projected fields alone, attachment count included', async () => {
    dynamo.on(QueryCommand).resolvesOnce({ Items: entries.slice(0, 1) });
    const [item] = (await store.listByEmail('eml_1', page)).items;
    expect(item).toEqual({
      messageId: entries[0]!.message_id,
      emailId: 'eml_1',
      from: 'a@example.org',
      to: ['x@tempmail.localhost'],
      subject: 's0',
      receivedAt: entries[0]!.received_at,
      expiresAt: '2026-11-22T12:15:00.000Z',
      sizeBytes: 10,
      attachmentCount: 1,
    });
  });
});

describe('DynamoDbMessageStore for the sweeper', () => {
  const keys = (n: number, shard: number) => ({
    message_id: `msg_${n}`,
    expiry_hour: `2026-11-22T12#${shard}`,
    expires_at: '2026-11-22T12:15:00.000Z',
    mail_id: `mail_${n}`,
    raw_key: `mail/mail_${n}/raw`,
  });
  const partitionOf = (input: unknown) => (input as { ExpressionAttributeValues: Record<string, string> }).ExpressionAttributeValues[':partition'];

  it('reads every shard of every hour of the expiry index, following continuations within a shard', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo
      .on(QueryCommand, { ExpressionAttributeValues: { ':partition': '2026-11-22T12#3' } })
      .resolvesOnce({ Items: [keys(1, 3)], LastEvaluatedKey: { message_id: 'msg_1', expiry_hour: '2026-11-22T12#3', expires_at: 'x' } })
      .resolvesOnce({ Items: [keys(2, 3)] });
    dynamo.on(QueryCommand, { ExpressionAttributeValues: { ':partition': '2026-11-22T13#15' } }).resolves({ Items: [keys(3, 15)] });
    const { messages: found, moreFrom } = await store.expiring(new Date('2026-11-22T12:00:00.000Z'), new Date('2026-11-22T13:30:00.000Z'), 1_000);
    expect(found.map((message) => message.messageId).sort()).toEqual(['msg_1', 'msg_2', 'msg_3']);
    expect(found[0]).toEqual({ messageId: 'msg_1', mailId: 'mail_1', rawKey: 'mail/mail_1/raw', expiresAt: '2026-11-22T12:15:00.000Z' });
    expect(moreFrom).toBeUndefined();
    const partitions = dynamo.commandCalls(QueryCommand).map((call) => partitionOf(call.args[0].input));
    const expected = ['2026-11-22T12', '2026-11-22T13'].flatMap((hour) => Array.from({ length: expiryShards }, (_, shard) => `${hour}#${shard}`));
    expect(new Set(partitions)).toEqual(new Set(expected));
    // Shard 3 of 12h was read twice (a continuation), every other partition once.
    expect(partitions).toHaveLength(expected.length + 1);
  });

  it('reads at most the limit, each shard its share and one more, and says from when the rest expires', async () => {
    const at = (minute: number) => `2026-11-22T12:${String(minute).padStart(2, '0')}:00.000Z`;
    const entry = (n: number, shard: number, minute: number) => ({ ...keys(n, shard), expires_at: at(minute) });
    dynamo.on(QueryCommand).resolves({ Items: [] });
    // Limit 20 over 16 shards: a share of 2 each, asked as 3 to learn whether a shard holds more.
    // Shard 0 does: it gives its 2 oldest, and its third says from when the rest expires.
    dynamo
      .on(QueryCommand, { ExpressionAttributeValues: { ':partition': '2026-11-22T12#0' } })
      .resolves({ Items: [entry(1, 0, 5), entry(2, 0, 6), entry(4, 0, 7)], LastEvaluatedKey: { message_id: 'msg_4', expiry_hour: '2026-11-22T12#0', expires_at: at(7) } });
    // Shard 1 holds exactly its share: the position DynamoDB hands back at the limit is no sign of more.
    dynamo
      .on(QueryCommand, { ExpressionAttributeValues: { ':partition': '2026-11-22T12#1' } })
      .resolvesOnce({ Items: [entry(3, 1, 1), entry(5, 1, 2)], LastEvaluatedKey: { message_id: 'msg_5', expiry_hour: '2026-11-22T12#1', expires_at: at(2) } })
      .resolvesOnce({ Items: [] });
    const { messages, moreFrom } = await store.expiring(new Date(at(0)), new Date('2026-11-22T13:30:00.000Z'), 20);
    expect(messages.map((message) => message.messageId)).toEqual(['msg_3', 'msg_5', 'msg_1', 'msg_2']);
    // The next hour was not read: the window goes on from shard 0's held-back message.
    expect(moreFrom).toBe(at(7));
    const calls = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(calls).toHaveLength(expiryShards + 1);
    expect(calls.map((input) => input.Limit)).toEqual([...Array<number>(expiryShards).fill(3), 1]);
  });

  it('returns the oldest of what it read when the shards together hold more than the limit', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [] });
    for (const shard of [4, 9]) {
      dynamo.on(QueryCommand, { ExpressionAttributeValues: { ':partition': `2026-11-22T12#${shard}` } }).resolves({
        Items: [{ ...keys(shard, shard), expires_at: `2026-11-22T12:0${shard}:00.000Z` }],
      });
    }
    const { messages, moreFrom } = await store.expiring(new Date('2026-11-22T12:00:00.000Z'), new Date('2026-11-22T12:30:00.000Z'), 1);
    expect(messages.map((message) => message.messageId)).toEqual(['msg_4']);
    expect(moreFrom).toBe('2026-11-22T12:09:00.000Z');
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
  const sweeping = new DynamoDbMessageStore(client, 'messages', { unprocessedRetryMs: 1 });
  const ids = (count: number) => Array.from({ length: count }, (_, n) => `msg_${n}`);
  const deletes = (messageIds: string[]) => messageIds.map((id) => ({ DeleteRequest: { Key: { message_id: id } } }));
  const sent = () => dynamo.commandCalls(BatchWriteCommand).map((call) => call.args[0].input.RequestItems!.messages);

  it('deletes 25 messages a call, the last call taking the rest', async () => {
    dynamo.on(BatchWriteCommand).resolves({});
    await sweeping.deleteMany(ids(60));
    expect(sent()).toEqual([deletes(ids(60).slice(0, 25)), deletes(ids(60).slice(25, 50)), deletes(ids(60).slice(50))]);
  });

  it('sends again what DynamoDB left unprocessed, until none is left', async () => {
    const left = deletes(['msg_3', 'msg_7']);
    dynamo
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { messages: left } })
      .resolvesOnce({ UnprocessedItems: { messages: left.slice(1) } })
      .resolves({});
    await sweeping.deleteMany(ids(10));
    expect(sent()).toEqual([deletes(ids(10)), left, left.slice(1)]);
  });

  // A throttled call as 503 Unavailable: test/unit/adapters/dynamodb/storage-error-mapping.test.ts, on dynalite.
  it('throws when deletes stay unprocessed after 8 calls', async () => {
    dynamo.on(BatchWriteCommand).resolves({ UnprocessedItems: { messages: deletes(['msg_1']) } });
    await expect(sweeping.deleteMany(ids(2))).rejects.toBeInstanceOf(Unavailable);
    expect(sent()).toHaveLength(8);
  });
});

describe('DynamoDbMessageStore writing a message', () => {
  const message = messageRecord({ attachmentCount: 900, attachments: { blobKey: 'mail/mail_1/attachments', sizeBytes: 370_000 } });

  it('keeps a large attachment list in the blob store and reads it back as stored', async () => {
    dynamo.on(PutCommand).resolves({});
    await store.put(message);
    const item = dynamo.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item).toMatchObject({ attachment_count: 900, attachments_blob: message.attachments });
    expect(item).not.toHaveProperty('attachments');
    dynamo.on(GetCommand).resolves({ Item: item });
    expect(await store.get('msg_1')).toEqual(message);
  });

  it('refuses an item over 400 KB counted in UTF-8 bytes, as DynamoDB does, before sending it', async () => {
    // 140,000 characters but 420,000 bytes: dynalite would store it, DynamoDB would not.
    const wide = { ...message, text: { inline: '€'.repeat(140_000) } };
    await expect(store.put(wide)).rejects.toEqual(new PermanentStorageFault('item_too_large'));
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });
  // DynamoDB's ValidationException and a throttle: test/unit/adapters/dynamodb/storage-error-mapping.test.ts.
});
