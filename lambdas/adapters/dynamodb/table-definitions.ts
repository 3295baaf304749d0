/**
 * The DynamoDB tables, defined once: the CDK storage construct and the local runtime both create
 * their tables from these definitions. Every key attribute is a string.
 */
export interface TableDefinition {
  partitionKey: string;
  sortKey?: string;
  /** The attribute DynamoDB TTL reads (Unix seconds); reads never rely on it. */
  ttlAttribute?: string;
  /** Global secondary indexes, each projecting its keys, the table's key and only what its reads need. */
  indexes?: readonly { name: string; partitionKey: string; sortKey: string; include: readonly string[] }[];
}

export const tableDefinitions = {
  accounts: { partitionKey: 'account_id' },
  /** A sign-in identity (issuer and subject) and the account it opened: written once, never changed. */
  identities: { partitionKey: 'identity' },
  apiKeys: {
    partitionKey: 'key_hash',
    indexes: [
      /** An account's keys for the console, by creation time: every field of a key record but its hash. */
      { name: 'by_account', partitionKey: 'account_id', sortKey: 'created_at', include: ['key_id', 'env', 'status', 'label', 'prefix'] },
    ],
  },
  domains: { partitionKey: 'domain' },
  emails: {
    partitionKey: 'email_id',
    ttlAttribute: 'ttl',
    indexes: [
      /** An account's inboxes for the console, newest first, with the fields of an email. */
      { name: 'by_account', partitionKey: 'account_id', sortKey: 'created_at', include: ['address', 'local_part', 'domain', 'expires_at'] },
    ],
  },
  /** Every address ever issued: never deleted, so no address is allocated twice. */
  addresses: { partitionKey: 'address' },
  idempotency: { partitionKey: 'record_key', ttlAttribute: 'ttl' },
  messages: {
    partitionKey: 'message_id',
    ttlAttribute: 'ttl',
    indexes: [
      /** An email's messages, newest first, with the fields of a list item and nothing more. */
      {
        name: 'by_email',
        partitionKey: 'email_id',
        sortKey: 'received_sort',
        include: ['from', 'to', 'subject', 'received_at', 'expires_at', 'size_bytes', 'attachment_count'],
      },
      /** Expired messages for the sweeper: 16 shards of each hour, ordered by expiry, with where their blobs are. */
      { name: 'by_expiry', partitionKey: 'expiry_hour', sortKey: 'expires_at', include: ['mail_id', 'raw_key'] },
    ],
  },
} as const satisfies Record<string, TableDefinition>;

export type TableKey = keyof typeof tableDefinitions;

/** The physical name of each table in one deployment. */
export type TableNames = Record<TableKey, string>;

export const tableKeys = Object.keys(tableDefinitions) as TableKey[];

/** The local runtime's table names: a fixed prefix, since one dynalite serves one deployment. */
export function localTableNames(prefix = 'tempmail'): TableNames {
  return Object.fromEntries(tableKeys.map((key) => [key, `${prefix}-${key}`])) as TableNames;
}

/** The environment variable that carries a table's name to a function or the CLI: `apiKeys` → `API_KEYS_TABLE`. */
export function tableEnvironmentName(key: TableKey): string {
  return `${key.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase()}_TABLE`;
}

/** The table names from an environment, or the names of those missing. */
export function tableNamesFrom(environment: Record<string, string | undefined>): TableNames | { missing: string[] } {
  const missing = tableKeys.map(tableEnvironmentName).filter((name) => !environment[name]);
  if (missing.length > 0) return { missing };
  return Object.fromEntries(tableKeys.map((key) => [key, environment[tableEnvironmentName(key)]!])) as TableNames;
}
