import { join } from 'node:path';
import { localTableNames, tableKeys, tableNamesFrom, type TableNames } from '../lambdas/adapters/dynamodb/table-definitions';
import { createStores, type Stores } from '../lambdas/composition/services';
import { ensureTables, startLocalDynamoDb } from '../local/local-dynamodb';
import { runningEndpoint } from '../local/endpoint-file';

export interface Connection {
  stores: Stores;
  /** Where the stores are: `aws`, or the local endpoint. */
  target: string;
  close(): Promise<void>;
}

/**
 * Connects the operator CLI to the same tables the service uses: on AWS when the stack's eight
 * table names are given (`ACCOUNTS_TABLE`, `API_KEYS_TABLE`…, as the stack outputs them, or read
 * from the stack with `--stack`); otherwise to the local runtime's dynalite, through the running
 * service, or, when none runs, by opening the data directory itself.
 */
export async function connect(environment: NodeJS.ProcessEnv): Promise<Connection> {
  const awsTables = awsTableNames(environment);
  if (awsTables) {
    const stores = createStores({ tableNames: awsTables, dynamodbEndpoint: environment.DYNAMODB_ENDPOINT });
    return { stores, target: 'aws', close: async () => undefined };
  }
  const dataDir = environment.DATA_DIR || '.data';
  const tableNames = localTableNames();
  const running = environment.DYNAMODB_ENDPOINT ?? (await runningEndpoint(dataDir));
  if (running) {
    return { stores: createStores({ tableNames, dynamodbEndpoint: running }), target: running, close: async () => undefined };
  }
  const dynamodb = await startLocalDynamoDb({ path: join(dataDir, 'dynamodb') });
  await ensureTables(dynamodb.endpoint, tableNames);
  return {
    stores: createStores({ tableNames, dynamodbEndpoint: dynamodb.endpoint }),
    target: dynamodb.endpoint,
    close: () => dynamodb.close(),
  };
}

function awsTableNames(environment: NodeJS.ProcessEnv): TableNames | undefined {
  const names = tableNamesFrom(environment);
  if (!('missing' in names)) return names;
  if (names.missing.length === tableKeys.length) return undefined;
  throw new Error(`Give every table name or none; missing: ${names.missing.join(', ')}`);
}
