import { DynamoDbMessageStore } from '../../../lambdas/adapters/dynamodb/dynamodb-message-store';
import { Unavailable } from '../../../lambdas/core/errors';
import { deliveredMessageId } from '../../../lambdas/core/ids';
import type { MessageRecord } from '../../../lambdas/core/ports/message-store';
import { startLocalTables, type LocalTables } from '../../support/local-tables';
import { storageFaults } from '../../support/storage-faults';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('delivery');
});
afterAll(() => tables.close());

const message: MessageRecord = {
  messageId: deliveredMessageId('sha256:abc', 'eml_1234567890', 7),
  emailId: 'eml_1234567890',
  accountId: 'acc_1',
  mailId: '1795000000000-AbCdEfGhIjKl',
  from: 'a@example.org',
  to: ['b@example.test'],
  subject: 's',
  receivedAt: '2026-11-22T12:00:00.000Z',
  expiresAt: '2026-11-22T12:15:00.000Z',
  sizeBytes: 10,
  text: { inline: 't' },
  html: { inline: '' },
  attachments: { inline: [] },
  attachmentCount: 0,
  rawKey: 'mail/1795000000000-AbCdEfGhIjKl/raw',
};

describe('writing a delivered message, on dynalite', () => {
  it('derives one message id per mail identity, email and delivery window, shaped like any message id', () => {
    expect(message.messageId).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(deliveredMessageId('sha256:abc', 'eml_1234567890', 7)).toBe(message.messageId);
    expect(deliveredMessageId('sha256:abd', 'eml_1234567890', 7)).not.toBe(message.messageId);
    expect(deliveredMessageId('sha256:abc', 'eml_1234567891', 7)).not.toBe(message.messageId);
    expect(deliveredMessageId('sha256:abc', 'eml_1234567890', 8)).not.toBe(message.messageId);
  });

  it('writes it where no message has its id and says created; a later delivery says exists and leaves it as it is', async () => {
    const store = new DynamoDbMessageStore(tables.client(), tables.names.messages);
    await expect(store.put(message)).resolves.toBe('created');
    await expect(store.put({ ...message, subject: 'a second delivery' })).resolves.toBe('exists');
    expect(await store.get(message.messageId, { consistent: true })).toEqual(message);
  });

  it('answers a throttled write as Unavailable, for the sender to retry, and writes nothing', async () => {
    const client = tables.client();
    const faults = storageFaults();
    faults.instrument(client);
    faults.fail({ command: 'PutItemCommand', table: '-messages', times: 1 });
    const store = new DynamoDbMessageStore(client, tables.names.messages);
    const other = { ...message, messageId: deliveredMessageId('sha256:abc', 'eml_1234567890', 8) };
    await expect(store.put(other)).rejects.toBeInstanceOf(Unavailable);
    expect(await store.get(other.messageId, { consistent: true })).toBeUndefined();
  });
});
