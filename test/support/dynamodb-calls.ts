import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Counts every DynamoDB command a client sends, by command name, through SDK middleware: the
 * call budget of a route (DESIGN: request flow 6) is counted where the calls leave the service.
 */
export function dynamoDbCalls() {
  let counts = new Map<string, number>();
  return {
    instrument(client: DynamoDBDocumentClient): void {
      client.middlewareStack.add(
        (next, context) => (args) => {
          const name = String(context.commandName);
          counts.set(name, (counts.get(name) ?? 0) + 1);
          return next(args);
        },
        { step: 'initialize', name: 'countDynamoDbCalls' },
      );
    },
    /** The calls counted since the last `take`, and a fresh count from here. */
    take(): Record<string, number> {
      const taken = Object.fromEntries(counts);
      counts = new Map();
      return taken;
    },
  };
}
