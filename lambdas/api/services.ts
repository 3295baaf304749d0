import { DynamoDbAccountStore } from '../adapters/dynamodb/dynamodb-account-store';
import { DynamoDbApiKeyStore } from '../adapters/dynamodb/dynamodb-api-key-store';
import { DynamoDbDomainStore } from '../adapters/dynamodb/dynamodb-domain-store';
import { createDocumentClient } from '../adapters/dynamodb/document-client';
import type { TableNames } from '../adapters/dynamodb/table-definitions';
import { systemClock, type Clock } from '../core/clock';
import { jsonLogger, type LogLevel, type Logger } from '../core/logger';
import type { AccountStore, ApiKeyStore, DomainStore, Ledger } from '../core/ports';

/** The storage adapters of one deployment. */
export interface Stores {
  accounts: AccountStore;
  ledger: Ledger;
  keys: ApiKeyStore;
  domains: DomainStore;
}

export interface StoresConfig {
  tableNames: TableNames;
  /** DynamoDB endpoint; the local dynalite, or AWS's own when absent. */
  dynamodbEndpoint?: string;
  region?: string;
}

/** The DynamoDB adapters over one document client: what the operator CLI needs, and the routes too. */
export function createStores(config: StoresConfig): Stores {
  const client = createDocumentClient({ endpoint: config.dynamodbEndpoint, region: config.region });
  const accounts = new DynamoDbAccountStore(client, config.tableNames.accounts);
  return {
    accounts,
    ledger: accounts,
    keys: new DynamoDbApiKeyStore(client, config.tableNames.apiKeys),
    domains: new DynamoDbDomainStore(client, config.tableNames.domains),
  };
}

/** Everything the routes and the authorizer use, wired once per runtime. */
export interface ApiServices extends Stores {
  /** The environment this deployment serves; keys are bound to it. */
  env: string;
  clock: Clock;
  logger: Logger;
  /** HMAC secret of list cursors. */
  cursorSecret: string;
}

export interface ServicesConfig extends StoresConfig {
  env: string;
  cursorSecret: string;
  logLevel: LogLevel;
}

/**
 * Builds the real services over DynamoDB. The Lambda runtime calls it with its environment, the
 * local runtime with its own config and dynalite's endpoint: the same adapters in both.
 */
export function createServices(
  config: ServicesConfig,
  overrides: { clock?: Clock; logger?: Logger } = {},
): ApiServices {
  return {
    ...createStores(config),
    env: config.env,
    clock: overrides.clock ?? systemClock,
    logger: overrides.logger ?? jsonLogger(config.logLevel, (line) => process.stdout.write(`${line}\n`)),
    cursorSecret: config.cursorSecret,
  };
}
