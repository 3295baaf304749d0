import type { TableKey } from './adapters/dynamodb/table-definitions';

/** The DynamoDB actions a function may send, without the `dynamodb:` prefix. */
export type ItemAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'Query' | 'Scan' | 'BatchGetItem' | 'BatchWriteItem';

/** Key prefixes of the blob bucket, each with its trailing slash. */
export type BlobPrefix = 'mail/' | 'inbound/';

/**
 * What one function's code touches, and so all its role may do (docs/permissions.md checks every
 * recorded call against the grants made of it): the tables and their actions, in the order the
 * stack grants them, the blob prefixes by kind of access, and the secrets it reads. Plain data:
 * `lib/` maps it to `grant*` calls, and no CDK code is imported here.
 */
export interface FunctionAccess {
  readonly tables: Readonly<Partial<Record<TableKey, readonly ItemAction[]>>>;
  readonly blobs?: Readonly<Partial<Record<'read' | 'write' | 'delete' | 'list', readonly BlobPrefix[]>>>;
  /** The cursor secret, read from Secrets Manager by the routes that sign or read list cursors. */
  readonly secrets?: readonly 'cursor'[];
}

/** Reading an account and settling its allowance: the authorizer and every route do, two item actions, never a scan. */
export const allowance = { accounts: ['GetItem', 'UpdateItem'] } as const satisfies FunctionAccess['tables'];

/** A console route opens the account of a first sign-in (core/identities.ts: accountForIdentity). */
export const firstSignIn = { accounts: ['GetItem', 'UpdateItem', 'PutItem'], identities: ['GetItem', 'PutItem'] } as const satisfies FunctionAccess['tables'];
