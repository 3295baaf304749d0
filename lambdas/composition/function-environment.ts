import * as z from 'zod/mini';
import { environmentPattern } from '../core/api-keys';
import { tableEnvironmentName, tableKeys, type TableNames } from '../adapters/dynamodb/table-definitions';

/**
 * The names of the variables a function reads at cold start, written by the CDK stack, by
 * `npm run start:stack` and by `npm start`: one list, so that no writer and no reader spells a
 * name of its own. The table names are the tables' own (table-definitions.ts: `tableEnvironmentName`).
 */
export const functionEnvironmentNames = {
  stage: 'TEMPMAIL_ENV',
  logLevel: 'LOG_LEVEL',
  messageTtlSeconds: 'TEMPMAIL_MESSAGE_TTL_SECONDS',
  emailTtlSeconds: 'TEMPMAIL_EMAIL_TTL_SECONDS',
  receiptRuleDomains: 'RECEIPT_RULE_DOMAINS',
  blobBucket: 'BLOB_BUCKET',
  cursorSecretArn: 'CURSOR_SECRET_ARN',
  oidcIssuer: 'OIDC_ISSUER',
  oidcClientId: 'OIDC_CLIENT_ID',
  originVerify: 'TEMPMAIL_ORIGIN_VERIFY',
} as const;

const names = functionEnvironmentNames;
const lifetime = z.optional(z.coerce.number().check(z.int(), z.minimum(1)));
const present = z.string().check(z.minLength(1));

/**
 * The one schema of a function's environment. Every function reads the common part; the blob
 * bucket, the cursor secret's ARN and the OpenID Connect issuer are set only on the functions the
 * manifest (lambdas/function-manifest.ts) gives them, so they are optional here and required by
 * the composition root that uses them. The lifetimes are set only by a stack synthesized to
 * override them.
 */
export const functionEnvironment = z.object({
  [names.stage]: z.string().check(z.regex(environmentPattern)),
  [names.logLevel]: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
  [names.messageTtlSeconds]: lifetime,
  [names.emailTtlSeconds]: lifetime,
  /** The receipt rule's recipients, comma-separated: the only domains mail reaches in AWS. */
  [names.receiptRuleDomains]: z.optional(z.string()),
  [names.blobBucket]: z.optional(present),
  [names.cursorSecretArn]: z.optional(present),
  [names.oidcIssuer]: z.optional(present),
  [names.oidcClientId]: z.optional(present),
  /** The key authorizer's only: the value the console's distribution adds, with which a viewer address is believed. */
  [names.originVerify]: z.optional(present),
});

export type FunctionEnvironment = z.infer<typeof functionEnvironment>;

/** Reads and validates a function's environment: the composition roots call it once per cold start. */
export function readFunctionEnvironment(environment: NodeJS.ProcessEnv): FunctionEnvironment {
  return z.parse(functionEnvironment, environment);
}

/** A variable the function needs beyond the common ones, or a clear error naming it. */
export function requiredVariable(value: string | undefined, name: string): string {
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** What a writer knows of the common environment; the names are this module's. */
export interface CommonEnvironment {
  stage: string;
  receiptRuleDomains: readonly string[];
  blobBucket: string;
  tableNames: TableNames;
  /** Lifetimes other than the contract's, for a stack run that tests expiry; a deployment leaves them unset. */
  messageTtlSeconds?: number;
  emailTtlSeconds?: number;
}

/**
 * Writes the environment every function gets (the CDK stack with its tokens, `start:stack` with
 * its own values), checking the lifetimes as the reader will.
 */
export function writeCommonEnvironment(values: CommonEnvironment): Record<string, string> {
  const { messageTtlSeconds, emailTtlSeconds } = values;
  for (const [name, seconds] of Object.entries({ messageTtlSeconds, emailTtlSeconds })) {
    if (seconds !== undefined && !(Number.isInteger(seconds) && seconds >= 1)) throw new Error(`${name} must be a whole number of seconds, at least 1 (got ${seconds})`);
  }
  return {
    [names.stage]: values.stage,
    [names.receiptRuleDomains]: values.receiptRuleDomains.join(','),
    ...(messageTtlSeconds ? { [names.messageTtlSeconds]: String(messageTtlSeconds) } : {}),
    ...(emailTtlSeconds ? { [names.emailTtlSeconds]: String(emailTtlSeconds) } : {}),
    [names.blobBucket]: values.blobBucket,
    ...Object.fromEntries(tableKeys.map((key) => [tableEnvironmentName(key), values.tableNames[key]])),
  };
}
