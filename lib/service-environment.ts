import { writeCommonEnvironment } from '../lambdas/composition/function-environment';
import { tableKeys, type TableNames } from '../lambdas/adapters/dynamodb/table-definitions';
import type { Storage } from './storage';

/**
 * Lifetimes other than the contract's (15-minute messages, 30-day reservations), for a stack run
 * to test expiry (`npm run start:stack` with its TTL overrides); a deployment leaves them unset.
 */
export interface Lifetimes {
  messageTtlSeconds?: number;
  emailTtlSeconds?: number;
}

/**
 * The environment every function reads at cold start (lambdas/composition/function-environment.ts
 * names and reads it): the stage keys are bound to, the receipt rule's domains (no other domain
 * receives, so none other is offered), each table's name and the blob bucket. No secret: the
 * cursor routes get the cursor secret's ARN and read the value from Secrets Manager.
 */
export function serviceEnvironment(props: { storage: Storage; stage: string; domains: string[]; lifetimes?: Lifetimes }): Record<string, string> {
  return writeCommonEnvironment({
    stage: props.stage,
    receiptRuleDomains: props.domains,
    ...props.lifetimes,
    blobBucket: props.storage.bucket.bucketName,
    tableNames: Object.fromEntries(tableKeys.map((key) => [key, props.storage.tables[key].tableName])) as TableNames,
  });
}
