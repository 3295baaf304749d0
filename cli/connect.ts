import { join } from 'node:path';
import { localTableNames, tableKeys, tableNamesFrom, type TableNames } from '../lambdas/adapters/dynamodb/table-definitions';
import { createStores, type Stores } from '../lambdas/composition/services';
import { receiptRuleDomainsFrom, type ReceiptRuleDomains } from '../lambdas/core/domains';
import { defaultDataDir } from '../local/config';
import { ensureTables, startLocalDynamoDb } from '../local/local-dynamodb';
import { announcedService, runningEndpoint, type AnnouncedService } from '../local/endpoint-file';
import { functionEnvironmentNames } from '../lambdas/composition/function-environment';

export interface Connection {
  stores: Stores;
  /** Where the stores are: `aws`, or the local endpoint. */
  target: string;
  /**
   * The domains mail reaches: the stack's receipt rule's (`RECEIPT_RULE_DOMAINS`, an output of the
   * stack, or what a running `npm run start:stack` announced). Undefined locally under `npm start`,
   * where every registered domain receives, and in AWS when the stack does not say.
   */
  receiptRule: ReceiptRuleDomains;
  /** What the local service running on the data directory announced: its API, SMTP port and environment. */
  service?: AnnouncedService;
  close(): Promise<void>;
}

/**
 * Connects the operator CLI to the same tables the service uses: on AWS when the stack's eight
 * table names are given (`ACCOUNTS_TABLE`, `API_KEYS_TABLE`…, as the stack outputs them, or read
 * from the stack with `--stack`); otherwise to the local runtime's dynalite, through the running
 * service, or, when none runs, by opening the data directory itself.
 */
export async function connect(environment: NodeJS.ProcessEnv): Promise<Connection> {
  const ruleDomains = environment[functionEnvironmentNames.receiptRuleDomains];
  const given = ruleDomains === undefined ? undefined : receiptRuleDomainsFrom(ruleDomains);
  const awsTables = awsTableNames(environment);
  if (awsTables) {
    const stores = createStores({ tableNames: awsTables, dynamodbEndpoint: environment.DYNAMODB_ENDPOINT, receiptRule: given });
    return { stores, target: 'aws', receiptRule: given, close: async () => undefined };
  }
  const dataDir = environment.DATA_DIR || defaultDataDir;
  const tableNames = localTableNames();
  const running = environment.DYNAMODB_ENDPOINT ?? (await runningEndpoint(dataDir));
  if (running) {
    const service = environment.DYNAMODB_ENDPOINT ? undefined : await announcedService(dataDir);
    const receiptRule = given ?? service?.receiptRuleDomains;
    const stores = createStores({ tableNames, dynamodbEndpoint: running, receiptRule });
    return { stores, target: running, receiptRule, ...(service ? { service } : {}), close: async () => undefined };
  }
  // No service runs: nothing receives now; the next `npm start` receives for every registered domain.
  const dynamodb = await startLocalDynamoDb({ path: join(dataDir, 'dynamodb') });
  await ensureTables(dynamodb.endpoint, tableNames);
  return {
    stores: createStores({ tableNames, dynamodbEndpoint: dynamodb.endpoint, receiptRule: given }),
    target: dynamodb.endpoint,
    receiptRule: given,
    close: () => dynamodb.close(),
  };
}

function awsTableNames(environment: NodeJS.ProcessEnv): TableNames | undefined {
  const names = tableNamesFrom(environment);
  if (!('missing' in names)) return names;
  if (names.missing.length === tableKeys.length) return undefined;
  throw new Error(`Give every table name or none; missing: ${names.missing.join(', ')}`);
}
