import { tableEnvironmentName, tableKeys } from '../lambdas/adapters/dynamodb/table-definitions';
import type { Storage } from './storage';

/**
 * The environment every function reads at cold start (lambdas/composition/lambda-services.ts): the stage
 * keys are bound to, each table's name, the blob bucket and the cursor secret.
 */
export function serviceEnvironment(props: { storage: Storage; stage: string; cursorSecret: string }): Record<string, string> {
  return {
    TEMPMAIL_ENV: props.stage,
    CURSOR_SECRET: props.cursorSecret,
    BLOB_BUCKET: props.storage.bucket.bucketName,
    ...Object.fromEntries(tableKeys.map((key) => [tableEnvironmentName(key), props.storage.tables[key].tableName])),
  };
}
