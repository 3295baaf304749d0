import { tableEnvironmentName, tableKeys } from '../lambdas/adapters/dynamodb/table-definitions';
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
 * The environment every function reads at cold start (lambdas/composition/lambda-services.ts): the stage
 * keys are bound to, the receipt rule's domains (no other domain receives, so none other is offered),
 * each table's name and the blob bucket. No secret: the cursor routes get the cursor secret's ARN
 * and read the value from Secrets Manager.
 */
export function serviceEnvironment(props: { storage: Storage; stage: string; domains: string[]; lifetimes?: Lifetimes }): Record<string, string> {
  const { messageTtlSeconds, emailTtlSeconds } = props.lifetimes ?? {};
  for (const [name, seconds] of Object.entries({ messageTtlSeconds, emailTtlSeconds })) {
    if (seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 1)) throw new Error(`${name} must be a whole number of seconds, at least 1 (got ${seconds})`);
  }
  return {
    TEMPMAIL_ENV: props.stage,
    RECEIPT_RULE_DOMAINS: props.domains.join(','),
    ...(messageTtlSeconds ? { TEMPMAIL_MESSAGE_TTL_SECONDS: String(messageTtlSeconds) } : {}),
    ...(emailTtlSeconds ? { TEMPMAIL_EMAIL_TTL_SECONDS: String(emailTtlSeconds) } : {}),
    BLOB_BUCKET: props.storage.bucket.bucketName,
    ...Object.fromEntries(tableKeys.map((key) => [tableEnvironmentName(key), props.storage.tables[key].tableName])),
  };
}
