import { DynamoDbDeliveryReads } from '../../../lambdas/adapters/dynamodb/dynamodb-delivery-reads';
import { DynamoDbMessageStore } from '../../../lambdas/adapters/dynamodb/dynamodb-message-store';
import { mapStorageErrors } from '../../../lambdas/adapters/storage-errors';
import { PermanentStorageFault, Unavailable } from '../../../lambdas/core/errors';
import { messageRecord } from '../../support/message-records';
import { startLocalTables, type LocalTables } from '../../support/local-tables';
import { storageFaults } from '../../support/storage-faults';

let tables: LocalTables;
beforeAll(async () => {
  tables = await startLocalTables('mapping');
});
afterAll(() => tables.close());

const message = messageRecord();

/** A client whose calls of one command fail with a throttle, `times` times (batch calls name no one table: ''). */
function throttled(command: string, table: string, times = 1) {
  const client = tables.client();
  const faults = storageFaults();
  faults.instrument(client);
  faults.fail({ command, table, times });
  return client;
}

// The S3 client carries the same mapping: test/unit/adapters/blobs/s3-blob-store.test.ts meets it with faults answered in HTTP.
describe('storage errors, mapped once by the document client for every store', () => {
  it("takes DynamoDB's ValidationException for the permanent fault it is", async () => {
    const store = new DynamoDbMessageStore(tables.client(), tables.names.messages);
    // An empty key is refused by DynamoDB (and dynalite) with a ValidationException: no retry will help.
    await expect(store.put({ ...message, messageId: '' })).rejects.toBeInstanceOf(PermanentStorageFault);
  });

  it('turns a throttled write, batch delete and batch read into 503 Unavailable', async () => {
    const writes = new DynamoDbMessageStore(throttled('PutItemCommand', '-messages'), tables.names.messages);
    await expect(writes.put(message)).rejects.toBeInstanceOf(Unavailable);
    const deletes = new DynamoDbMessageStore(throttled('BatchWriteItemCommand', ''), tables.names.messages);
    await expect(deletes.deleteMany(['msg_1', 'msg_2'])).rejects.toBeInstanceOf(Unavailable);
    const reads = new DynamoDbDeliveryReads(throttled('BatchGetItemCommand', ''), tables.names);
    await expect(reads.read({ domains: ['example.com'] })).rejects.toBeInstanceOf(Unavailable);
  });

  it('lets a condition failure and an unknown error through unchanged, for the store to judge', async () => {
    const store = new DynamoDbMessageStore(tables.client(), tables.names.messages);
    const kept = { ...message, messageId: 'msg_kept' };
    await store.put(kept);
    await expect(store.put(kept)).resolves.toBe('exists');
    const client = tables.client();
    client.middlewareStack.add(() => () => Promise.reject(new Error('something else')), { step: 'initialize', name: 'testUnknown' });
    await expect(new DynamoDbMessageStore(client, tables.names.messages).get('msg_kept')).rejects.toThrow('something else');
  });

  it('sits in a client once, however often it is asked to', () => {
    const client = tables.client();
    mapStorageErrors(client);
    mapStorageErrors(client);
    expect(client.middlewareStack.identify().filter((name) => name.startsWith('tempmailStorageErrors'))).toHaveLength(1);
  });
});
