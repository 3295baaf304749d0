import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { tableDefinitions, tableKeys, type TableDefinition, type TableNames } from '../lambdas/adapters/dynamodb/table-definitions';
import { channelRequestHandler } from './dynalite-channel';
import type { DynaliteOptions } from './dynalite-server';

export interface LocalDynamoDb {
  endpoint: string;
  /** The SDK request handler that reaches the thread without TCP or HTTP (dynalite-channel.ts). */
  requestHandler: ReturnType<typeof channelRequestHandler>;
  close(): Promise<void>;
}

type ThreadReply = { port: number } | { error: string } | 'closed';

/**
 * Starts dynalite, the DynamoDB API over LevelDB, on a loopback port in its own worker thread,
 * so the storage emulator has the second core to itself. With a path the data survives a
 * restart; without one it lives in memory. The thread's TypeScript is loaded through tsx's
 * require hook, the same way in `npm start` and under the test runner.
 */
export async function startLocalDynamoDb(options: DynaliteOptions = {}): Promise<LocalDynamoDb> {
  const entry = join(__dirname, 'dynalite-thread.ts');
  const channel = new MessageChannel();
  const worker = new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    workerData: { ...options, channel: channel.port2 },
    transferList: [channel.port2],
  });
  const reply = await nextReply(worker);
  if (reply === 'closed' || 'error' in reply) {
    await worker.terminate();
    throw new Error(`dynalite did not start: ${reply === 'closed' ? 'closed' : reply.error}`);
  }
  return {
    endpoint: `http://127.0.0.1:${reply.port}`,
    requestHandler: channelRequestHandler(channel.port1),
    close: async () => {
      worker.postMessage('close');
      const closed = await nextReply(worker);
      await worker.terminate();
      channel.port1.close();
      if (closed !== 'closed') throw new Error(`dynalite did not close: ${'error' in closed ? closed.error : 'no answer'}`);
    },
  };
}

/** The thread's next message; its crash or exit without a word is an error. */
function nextReply(worker: Worker): Promise<ThreadReply> {
  return new Promise((resolve, reject) => {
    const settle = (finish: () => void) => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      finish();
    };
    const onMessage = (reply: ThreadReply) => settle(() => resolve(reply));
    const onError = (error: Error) => settle(() => reject(error));
    const onExit = (code: number) => settle(() => reject(new Error(`dynalite thread exited with code ${code}`)));
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

/**
 * Creates any missing table from the shared definitions, the same ones the CDK stack uses.
 * dynalite has no TTL (nor does the service rely on it: reads compare expiry with the clock).
 */
export async function ensureTables(endpoint: string, names: TableNames): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
    for (const key of tableKeys) {
      if (existing.has(names[key])) continue;
      const definition: TableDefinition = tableDefinitions[key];
      const keys = [definition.partitionKey, ...(definition.sortKey ? [definition.sortKey] : [])];
      const indexes = definition.indexes ?? [];
      const attributes = new Set([...keys, ...indexes.flatMap((index) => [index.partitionKey, index.sortKey])]);
      await client.send(
        new CreateTableCommand({
          TableName: names[key],
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
          KeySchema: keySchema(keys),
          ...(indexes.length > 0
            ? {
                GlobalSecondaryIndexes: indexes.map((index) => ({
                  IndexName: index.name,
                  KeySchema: keySchema([index.partitionKey, index.sortKey]),
                  Projection:
                    index.include.length > 0
                      ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.include] }
                      : { ProjectionType: 'KEYS_ONLY' },
                })),
              }
            : {}),
        }),
      );
    }
  } finally {
    client.destroy();
  }
}

function keySchema(names: string[]): { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[] {
  return names.map((name, index) => ({ AttributeName: name, KeyType: index === 0 ? 'HASH' : 'RANGE' }));
}
