import { localTableNames, tableEnvironmentName, tableKeys } from '../../lambdas/adapters/dynamodb/table-definitions';
import { asFunction, recordCalls, recording } from '../../local/iam/recording';
import type { LocalOverrides } from '../../local/start-local';

/**
 * The permission check's instruments for a local runtime a suite starts (docs/permissions.md):
 * each DynamoDB call recorded under the function whose code sent it, table names as the variables
 * that carry them. Given through `startLocal`'s overrides, so that `npm start` ships none of it;
 * a fault injector the suite passes sees the client after the recorder, so a refused call is
 * still recorded. Without `TEMPMAIL_CALL_LOG`, nothing is added.
 */
export function withCallRecording(overrides: Pick<LocalOverrides, 'instrumentDynamoDb'>): Pick<LocalOverrides, 'instrumentDynamoDb' | 'asFunction'> {
  if (!recording()) return {};
  const tableNames = localTableNames();
  const variables = Object.fromEntries(tableKeys.map((key) => [tableNames[key], tableEnvironmentName(key)]));
  return {
    asFunction,
    instrumentDynamoDb: (client) => {
      recordCalls(client, variables);
      overrides.instrumentDynamoDb?.(client);
    },
  };
}
