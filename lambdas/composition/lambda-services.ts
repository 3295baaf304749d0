import * as z from 'zod/mini';
import { tableNamesFrom } from '../adapters/dynamodb/table-definitions';
import { oidcIdentityVerifier } from '../adapters/oidc/identity-token-verifier';
import { createServices, type ApiServices, type ConsoleServices } from './services';

/** The Lambda functions' environment, as the CDK stack sets it. */
const lambdaEnvironment = z.object({
  TEMPMAIL_ENV: z.string().check(z.regex(/^[a-z0-9-]{1,16}$/)),
  CURSOR_SECRET: z.string().check(z.minLength(32)),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
});

let services: ApiServices | undefined;

/** The Lambda runtime's composition root: reads and validates the environment once per cold start. */
export function lambdaServices(): ApiServices {
  if (services) return services;
  const env = z.parse(lambdaEnvironment, process.env);
  const tableNames = tableNamesFrom(process.env);
  if ('missing' in tableNames) throw new Error(`Missing table names: ${tableNames.missing.join(', ')}`);
  services = createServices({
    env: env.TEMPMAIL_ENV,
    tableNames,
    cursorSecret: env.CURSOR_SECRET,
    logLevel: env.LOG_LEVEL,
  });
  return services;
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
  const base = lambdaServices();
  const oidc = z.parse(consoleEnvironment, process.env);
  consoleServices = {
    ...base,
    identityVerifier: oidcIdentityVerifier({ issuer: oidc.OIDC_ISSUER, clientId: oidc.OIDC_CLIENT_ID }, base),
  };
  return consoleServices;
}
