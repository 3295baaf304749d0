/**
 * The DynamoDB tables, defined once: the CDK storage construct and the local runtime both create
 * their tables from these definitions. Every key attribute is a string.
 */
export interface TableDefinition {
  partitionKey: string;
  sortKey?: string;
  /** The attribute DynamoDB TTL reads (Unix seconds); reads never rely on it. */
  ttlAttribute?: string;
}

export const tableDefinitions = {
  accounts: { partitionKey: 'account_id' },
  apiKeys: { partitionKey: 'key_hash' },
  domains: { partitionKey: 'domain' },
} as const satisfies Record<string, TableDefinition>;

export type TableKey = keyof typeof tableDefinitions;

/** The physical name of each table in one deployment. */
export type TableNames = Record<TableKey, string>;

export const tableKeys = Object.keys(tableDefinitions) as TableKey[];

/** The local runtime's table names: a fixed prefix, since one dynalite serves one deployment. */
export function localTableNames(prefix = 'tempmail'): TableNames {
  return Object.fromEntries(tableKeys.map((key) => [key, `${prefix}-${key}`])) as TableNames;
}
