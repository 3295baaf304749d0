import * as z from 'zod/mini';
import { tableNamesFrom } from '../adapters/dynamodb/table-definitions';
import { oidcIdentityVerifier } from '../adapters/oidc/identity-token-verifier';
import { receiptRuleDomainsFrom } from '../core/domains';
import { functionEnvironment, functionEnvironmentNames, readFunctionEnvironment, requiredVariable } from './function-environment';
import { createServices, type ApiServices, type ConsoleServices } from './services';

let services: ApiServices | undefined;

/**
 * The Lambda runtime's composition root: reads and validates the environment once per cold start.
 * The cursor secret is not in the environment nor in these services: the routes that need it read
 * it from Secrets Manager (composition/cursor-secret.ts), and their type asks for services with it.
 */
export function lambdaServices(): ApiServices {
  if (services) return services;
  const env = readFunctionEnvironment(process.env);
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

/** The one variable the key authorizer reads at import, before the services' environment is read. */
const originVerifyEnvironment = z.pick(functionEnvironment, { [functionEnvironmentNames.originVerify]: true });

/** The origin-verify value the authorizer trusts a viewer address with; unset, it trusts none. */
export function authorizerOriginVerify(): string | undefined {
  return z.parse(originVerifyEnvironment, process.env)[functionEnvironmentNames.originVerify];
}

let consoleServices: ConsoleServices | undefined;

/** The console functions' composition root: the API's services and the identity-token verifier of the issuer the manifest gives them. */
export function consoleLambdaServices(): ConsoleServices {
  if (consoleServices) return consoleServices;
  const env = readFunctionEnvironment(process.env);
  const oidc = {
    issuer: requiredVariable(env.OIDC_ISSUER, functionEnvironmentNames.oidcIssuer),
    clientId: requiredVariable(env.OIDC_CLIENT_ID, functionEnvironmentNames.oidcClientId),
  };
  consoleServices = withLambdaServices({ identityVerifier: oidcIdentityVerifier(oidc, lambdaServices()) });
  return consoleServices;
}
