import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface FaultRule {
  /** The DynamoDB operation, e.g. `PutItemCommand`. */
  command: string;
  /** The table whose name ends with this, e.g. `-emails`. */
  table: string;
  /** How many matching calls fail before calls go through again. */
  times: number;
  /** How many matching calls go through before the first failure (default 0). */
  after?: number;
}

/**
 * Makes the real SDK client fail chosen calls with a DynamoDB throttle, as the service would see
 * one in production; the call never reaches dynalite.
 */
export function storageFaults() {
  const rules: FaultRule[] = [];
  return {
    fail(rule: FaultRule) {
      rules.push({ ...rule });
    },
    pending: () => rules.reduce((sum, rule) => sum + rule.times, 0),
    instrument(client: DynamoDBDocumentClient) {
      client.middlewareStack.add(
        (next, context) => async (args) => {
          const table = String((args.input as { TableName?: string }).TableName ?? '');
          const rule = rules.find((r) => r.times > 0 && r.command === context.commandName && table.endsWith(r.table));
          if (rule && (rule.after ?? 0) > 0) {
            rule.after! -= 1;
          } else if (rule) {
            rule.times -= 1;
            throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
              name: 'ProvisionedThroughputExceededException',
              $fault: 'client',
              $metadata: { httpStatusCode: 400 },
            });
          }
          return next(args);
        },
        { step: 'initialize', name: 'testStorageFaults' },
      );
    },
  };
}
