import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { tableDefinitions, tableKeys, type TableDefinition, type TableNames } from '../lambdas/adapters/dynamodb/table-definitions';

export interface LocalDynamoDb {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Starts dynalite, the DynamoDB API over LevelDB, on a loopback port. With a path the data
 * survives a restart; without one it lives in memory.
 */
export async function startLocalDynamoDb(options: { path?: string; port?: number } = {}): Promise<LocalDynamoDb> {
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error?: Error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
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
