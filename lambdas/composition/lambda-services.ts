import * as z from 'zod/mini';
import { tableNamesFrom } from '../adapters/dynamodb/table-definitions';
import { receiptRuleDomainsFrom } from '../core/domains';
import { functionEnvironment, functionEnvironmentNames, readFunctionEnvironment } from './function-environment';
import { createServices, type ApiServices } from './services';

let services: ApiServices | undefined;

/**
 * The services every function of the Lambda runtime has: reads and validates the environment once
 * per cold start. What a function's manifest row adds (blobs, the identity verifier, the cursor
 * secret) is built by lambda-function-services.ts and lambda-route.ts. The cursor secret is not in
 * the environment nor in these services: the routes that need it read it from Secrets Manager
 * (composition/cursor-secret.ts), and their type asks for services with it.
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

/** The one variable the key authorizer reads at import, before the services' environment is read. */
const originVerifyEnvironment = z.pick(functionEnvironment, { [functionEnvironmentNames.originVerify]: true });

/** The origin-verify value the authorizer trusts a viewer address with; unset, it trusts none. */
export function authorizerOriginVerify(): string | undefined {
  return z.parse(originVerifyEnvironment, process.env)[functionEnvironmentNames.originVerify];
}
