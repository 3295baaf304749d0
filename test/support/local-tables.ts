import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambdas/adapters/dynamodb/document-client';
import { localTableNames, type TableNames } from '../../lambdas/adapters/dynamodb/table-definitions';
import { ensureTables, startLocalDynamoDb, type LocalDynamoDb } from '../../local/local-dynamodb';

export interface LocalTables {
  names: TableNames;
  /** A fresh document client on the same dynalite: each gets its own middleware (faults, interleavings). */
  client(): DynamoDBDocumentClient;
  close(): Promise<void>;
}

/**
 * One in-process dynalite with the service's tables, as `npm start` creates them: the store tests
 * assert each store's promises by behaviour against it, not by the text of the requests.
 */
export async function startLocalTables(prefix = 'store'): Promise<LocalTables> {
  const dynamodb: LocalDynamoDb = await startLocalDynamoDb();
  const names = localTableNames(prefix);
  await ensureTables(dynamodb.endpoint, names);
  return {
    names,
    client: () => createDocumentClient({ endpoint: dynamodb.endpoint, requestHandler: dynamodb.requestHandler }),
    close: () => dynamodb.close(),
  };
}

/** Records the commands a client sends, as they leave for dynalite. */
export function sentCommands(client: DynamoDBDocumentClient) {
  const sent: string[] = [];
  client.middlewareStack.add(
    (nextHandler, context) => (args) => {
      sent.push(String(context.commandName));
      return nextHandler(args);
    },
    { step: 'initialize', name: 'testSentCommands' },
  );
  return sent;
}
