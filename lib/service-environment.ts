import { tableEnvironmentName, tableKeys } from '../lambdas/adapters/dynamodb/table-definitions';
import type { Storage } from './storage';

/**
 * The environment every function reads at cold start (lambdas/composition/lambda-services.ts): the stage
 * keys are bound to, each table's name and the blob bucket. No secret: the cursor routes get the
 * cursor secret's ARN and read the value from Secrets Manager.
 */
export function serviceEnvironment(props: { storage: Storage; stage: string }): Record<string, string> {
  return {
    TEMPMAIL_ENV: props.stage,
    BLOB_BUCKET: props.storage.bucket.bucketName,
    ...Object.fromEntries(tableKeys.map((key) => [tableEnvironmentName(key), props.storage.tables[key].tableName])),
  };
}
