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

/**
 * Makes DynamoDB leave requests of the next batch calls of one command unprocessed, as it does
 * under throttling (dynalite never does): the first `count` requests of each of the next `times`
 * calls are taken out before the call reaches dynalite and handed back as unprocessed.
 */
export function leaveUnprocessed(client: DynamoDBDocumentClient, command: 'BatchGetItemCommand' | 'BatchWriteItemCommand', plan: { times: number; count: number }) {
  let left = plan.times;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== command || left === 0) return next(args);
      left -= 1;
      const input = args.input as { RequestItems: Record<string, { Keys: unknown[] } | unknown[]> };
      const sent: typeof input.RequestItems = {};
      const heldBack: typeof input.RequestItems = {};
      let quota = plan.count;
      for (const [table, requests] of Object.entries(input.RequestItems)) {
        const list = Array.isArray(requests) ? requests : requests.Keys;
        const held = list.slice(0, quota);
        quota -= held.length;
        const rest = list.slice(held.length);
        const wrap = (part: unknown[]) => (Array.isArray(requests) ? part : { ...requests, Keys: part });
        if (rest.length > 0) sent[table] = wrap(rest);
        if (held.length > 0) heldBack[table] = wrap(held);
      }
      const output = (Object.keys(sent).length > 0 ? await next({ ...args, input: { ...input, RequestItems: sent } }) : { output: {}, response: {} }) as {
        output: Record<string, unknown>;
      };
      const field = command === 'BatchGetItemCommand' ? 'UnprocessedKeys' : 'UnprocessedItems';
      return { ...output, output: { ...output.output, [field]: { ...(output.output[field] as object), ...heldBack } } } as never;
    },
    { step: 'initialize', name: `testLeaveUnprocessed${command}` },
  );
}
