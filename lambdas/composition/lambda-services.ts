import * as z from 'zod/mini';
import { environmentPattern } from '../core/api-keys';
import { tableNamesFrom } from '../adapters/dynamodb/table-definitions';
import { oidcIdentityVerifier } from '../adapters/oidc/identity-token-verifier';
import { receiptRuleDomainsFrom } from '../core/domains';
import { createServices, type ApiServices, type ConsoleServices } from './services';

const lifetime = z.optional(z.coerce.number().check(z.int(), z.minimum(1)));

/** The Lambda functions' environment, as the CDK stack sets it (the lifetimes only in a stack synthesized to override them). */
const lambdaEnvironment = z.object({
  TEMPMAIL_ENV: z.string().check(z.regex(environmentPattern)),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
  TEMPMAIL_MESSAGE_TTL_SECONDS: lifetime,
  TEMPMAIL_EMAIL_TTL_SECONDS: lifetime,
  /** The receipt rule's recipients, comma-separated: the only domains mail reaches in AWS. */
  RECEIPT_RULE_DOMAINS: z.optional(z.string()),
});

let services: ApiServices | undefined;

/**
 * The Lambda runtime's composition root: reads and validates the environment once per cold start.
 * The cursor secret is not in the environment nor in these services: the routes that need it read
 * it from Secrets Manager (composition/cursor-secret.ts), and their type asks for services with it.
 */
export function lambdaServices(): ApiServices {
  if (services) return services;
  const env = z.parse(lambdaEnvironment, process.env);
  const tableNames = tableNamesFrom(process.env);
  if ('missing' in tableNames) throw new Error(`Missing table names: ${tableNames.missing.join(', ')}`);
  services = createServices({
    env: env.TEMPMAIL_ENV,
    tableNames,
    logLevel: env.LOG_LEVEL,
    ...(env.RECEIPT_RULE_DOMAINS !== undefined ? { receiptRule: receiptRuleDomainsFrom(env.RECEIPT_RULE_DOMAINS) } : {}),
    ...(env.TEMPMAIL_MESSAGE_TTL_SECONDS ? { messageTtlSeconds: env.TEMPMAIL_MESSAGE_TTL_SECONDS } : {}),
    ...(env.TEMPMAIL_EMAIL_TTL_SECONDS ? { emailTtlSeconds: env.TEMPMAIL_EMAIL_TTL_SECONDS } : {}),
  });
  return services;
}

/** The API's services with more: the console's verifier, the blob functions' store. */
export function withLambdaServices<E extends object>(extra: E): ApiServices & E {
  return { ...lambdaServices(), ...extra };
}

/** The key authorizer's further environment: the value the console's distribution adds to its API requests. */
const authorizerEnvironment = z.object({
  TEMPMAIL_ORIGIN_VERIFY: z.optional(z.string().check(z.minLength(1))),
});

/** The origin-verify value the authorizer trusts a viewer address with; unset, it trusts none. */
export function authorizerOriginVerify(): string | undefined {
  return z.parse(authorizerEnvironment, process.env).TEMPMAIL_ORIGIN_VERIFY;
}

/** The console functions' further environment: the OpenID Connect issuer they trust. */
const consoleEnvironment = z.object({
  OIDC_ISSUER: z.string().check(z.minLength(1)),
  OIDC_CLIENT_ID: z.string().check(z.minLength(1)),
});

let consoleServices: ConsoleServices | undefined;

/** The console functions' composition root: the API's services and the identity-token verifier. */
export function consoleLambdaServices(): ConsoleServices {
  if (consoleServices) return consoleServices;
  const oidc = z.parse(consoleEnvironment, process.env);
  consoleServices = withLambdaServices({ identityVerifier: oidcIdentityVerifier({ issuer: oidc.OIDC_ISSUER, clientId: oidc.OIDC_CLIENT_ID }, lambdaServices()) });
  return consoleServices;
}
