import { DynamoDbAccountStore } from '../adapters/dynamodb/dynamodb-account-store';
import { DynamoDbApiKeyStore } from '../adapters/dynamodb/dynamodb-api-key-store';
import { DynamoDbAddressRegistry } from '../adapters/dynamodb/dynamodb-address-registry';
import { DynamoDbDeliveryReads } from '../adapters/dynamodb/dynamodb-delivery-reads';
import { DynamoDbDomainStore } from '../adapters/dynamodb/dynamodb-domain-store';
import { DynamoDbEmailStore } from '../adapters/dynamodb/dynamodb-email-store';
import { DynamoDbIdentityStore } from '../adapters/dynamodb/dynamodb-identity-store';
import { DynamoDbIdempotencyStore } from '../adapters/dynamodb/dynamodb-idempotency-store';
import { DynamoDbMessageStore } from '../adapters/dynamodb/dynamodb-message-store';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IdentityVerifier } from '../core/ports/identity-verifier';
import { createDocumentClient } from '../adapters/dynamodb/document-client';
import type { TableNames } from '../adapters/dynamodb/table-definitions';
import { systemClock } from '../adapters/system-clock';
import type { Clock } from '../core/ports/clock';
import { emailLifetimeSeconds, messageLifetimeSeconds } from '../core/lifetimes';
import { withinReceiptRule, type ReceiptRuleDomains } from '../core/domains';
import type { ShortWindowLimits } from '../core/short-window';
import { jsonLogger, type LogLevel } from '../adapters/json-logger';
import type { Logger } from '../core/ports/logger';
import type { AccountStore } from '../core/ports/account-store';
import type { ApiKeyStore } from '../core/ports/api-key-store';
import type { DomainStore } from '../core/ports/domain-store';
import type { IdentityStore } from '../core/ports/identity-store';
import type { Ledger } from '../core/ports/ledger';
import type { AddressRegistry } from '../core/ports/address-registry';
import type { BlobStore } from '../core/ports/blob-store';
import type { DeliveryReads } from '../core/ports/delivery-reads';
import type { EmailStore } from '../core/ports/email-store';
import type { IdempotencyStore } from '../core/ports/idempotency-store';
import type { MessageStore } from '../core/ports/message-store';

/** The storage adapters of one deployment. */
export interface Stores {
  accounts: AccountStore;
  ledger: Ledger;
  identities: IdentityStore;
  keys: ApiKeyStore;
  domains: DomainStore;
  emails: EmailStore;
  registry: AddressRegistry;
  idempotency: IdempotencyStore;
  messages: MessageStore;
  /** The delivery path's reads of domains, the registry, emails and messages, made together. */
  deliveryReads: DeliveryReads;
}

export interface StoresConfig {
  tableNames: TableNames;
  /** An already-built client (the local runtime's); otherwise one is built from the endpoint. */
  client?: DynamoDBDocumentClient;
  /** DynamoDB endpoint; the local dynalite, or AWS's own when absent. */
  dynamodbEndpoint?: string;
  region?: string;
  /** The stack's receipt rule domains (RECEIPT_RULE_DOMAINS): no other domain receives. Unset locally. */
  receiptRule?: ReceiptRuleDomains;
}

/** The DynamoDB adapters over one document client: what the operator CLI needs, and the routes too. */
export function createStores(config: StoresConfig): Stores {
  const client = config.client ?? createDocumentClient({ endpoint: config.dynamodbEndpoint, region: config.region });
  const accounts = new DynamoDbAccountStore(client, config.tableNames.accounts);
  return {
    accounts,
    ledger: accounts,
    identities: new DynamoDbIdentityStore(client, config.tableNames.identities),
    keys: new DynamoDbApiKeyStore(client, config.tableNames.apiKeys),
    domains: withinReceiptRule(new DynamoDbDomainStore(client, config.tableNames.domains), config.receiptRule),
    emails: new DynamoDbEmailStore(client, config.tableNames.emails),
    registry: new DynamoDbAddressRegistry(client, config.tableNames.addresses),
    idempotency: new DynamoDbIdempotencyStore(client, config.tableNames.idempotency),
    messages: new DynamoDbMessageStore(client, config.tableNames.messages),
    deliveryReads: new DynamoDbDeliveryReads(client, {
      domains: config.tableNames.domains,
      addresses: config.tableNames.addresses,
      emails: config.tableNames.emails,
      messages: config.tableNames.messages,
    }),
  };
}

/** Everything the routes and the authorizer use, wired once per runtime. */
export interface ApiServices extends Stores {
  /** The environment this deployment serves; keys are bound to it. */
  env: string;
  clock: Clock;
  logger: Logger;
  /** Reservation lifetime in seconds: 30 days, shortened only by the local override. */
  emailTtlSeconds: number;
  /** Message lifetime in seconds: 15 minutes, shortened only by the local override. */
  messageTtlSeconds: number;
  /** Short-window limits other than the contract's: only the local runtime's load-test override. */
  shortWindow?: ShortWindowLimits;
}

/**
 * The HMAC secret of list cursors. Not part of `ApiServices`: in Lambda only the cursor routes are
 * granted the secret, so only the wiring that holds it (`withCursorSecret`, or a runtime built with
 * one) can produce services that carry it, and a route that signs cursors cannot be handed
 * services without it: the compiler refuses.
 */
export interface CursorSecret {
  cursorSecret: string;
}

/** The services of a route that signs or reads list cursors. */
export type CursorServices<S extends ApiServices = ApiServices> = S & CursorSecret;

/** The console API's services: the API's, and the verifier of identity tokens. */
export interface ConsoleServices extends ApiServices {
  identityVerifier: IdentityVerifier;
}

/** The services of the functions that read or write blobs: raw sources, attachments, large bodies. */
export interface BlobServices extends ApiServices {
  blobs: BlobStore;
}

export interface ServicesConfig extends StoresConfig {
  env: string;
  /** The cursor secret, where this runtime holds it for every route (the local one); the Lambda runtime has none. */
  cursorSecret?: string;
  logLevel: LogLevel;
  emailTtlSeconds?: number;
  messageTtlSeconds?: number;
  shortWindow?: ShortWindowLimits;
}

/** What a runtime's tests replace in the services: the clock and the logger. */
export interface ServiceOverrides {
  clock?: Clock;
  logger?: Logger;
}

/**
 * Builds the real services over DynamoDB. The Lambda runtime calls it with its environment, the
 * local runtime with its own config and dynalite's endpoint: the same adapters in both.
 */
export function createServices(config: ServicesConfig & CursorSecret, overrides?: ServiceOverrides): CursorServices;
export function createServices(config: ServicesConfig, overrides?: ServiceOverrides): ApiServices;
export function createServices(config: ServicesConfig, overrides: ServiceOverrides = {}): ApiServices | CursorServices {
  return {
    ...createStores(config),
    env: config.env,
    clock: overrides.clock ?? systemClock,
    logger: overrides.logger ?? jsonLogger(config.logLevel, (line) => process.stdout.write(`${line}\n`)),
    ...(config.cursorSecret === undefined ? {} : { cursorSecret: config.cursorSecret }),
    emailTtlSeconds: config.emailTtlSeconds ?? emailLifetimeSeconds,
    messageTtlSeconds: config.messageTtlSeconds ?? messageLifetimeSeconds,
    ...(config.shortWindow ? { shortWindow: config.shortWindow } : {}),
  };
}
