import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { TableKey } from '../lambdas/adapters/dynamodb/table-definitions';
import type { FunctionAccess } from '../lambdas/function-access';
import type { ServiceFunction } from './service-function';
import type { Storage } from './storage';

/**
 * Grants a function's role what its declaration (lambdas/function-manifest.ts) says its code
 * touches, and nothing more: each table's item actions, the blob prefixes by kind of access, the
 * secrets it reads. docs/permissions.md checks the calls the suites record against these grants.
 */
export function grantAccess(fn: ServiceFunction, access: FunctionAccess, resources: { storage: Storage; cursorSecret?: ISecret }): void {
  const { storage } = resources;
  for (const [table, actions] of Object.entries(access.tables) as [TableKey, readonly string[]][]) storage.grantItems(fn, table, ...actions);
  if (access.blobs) {
    const { read, write, delete: remove, list } = access.blobs;
    storage.grantBlobs(fn, {
      ...(read ? { read: [...read] } : {}),
      ...(write ? { write: [...write] } : {}),
      ...(remove ? { delete: [...remove] } : {}),
      ...(list ? { list: [...list] } : {}),
    });
  }
  if (access.secrets?.includes('cursor')) {
    if (!resources.cursorSecret) throw new Error('a function that reads the cursor secret needs the secret');
    resources.cursorSecret.grantRead(fn);
  }
}
