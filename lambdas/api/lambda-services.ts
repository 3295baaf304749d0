import * as z from 'zod/mini';
import { createServices, type ApiServices } from './services';

/** The Lambda functions' environment, as the CDK stack sets it. */
const lambdaEnvironment = z.object({
  TEMPMAIL_ENV: z.string().check(z.regex(/^[a-z0-9-]{1,16}$/)),
  ACCOUNTS_TABLE: z.string().check(z.minLength(3)),
  API_KEYS_TABLE: z.string().check(z.minLength(3)),
  DOMAINS_TABLE: z.string().check(z.minLength(3)),
  CURSOR_SECRET: z.string().check(z.minLength(32)),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
});

let services: ApiServices | undefined;

/** The Lambda runtime's composition root: reads and validates the environment once per cold start. */
export function lambdaServices(): ApiServices {
  if (services) return services;
  const env = z.parse(lambdaEnvironment, process.env);
  services = createServices({
    env: env.TEMPMAIL_ENV,
    tableNames: { accounts: env.ACCOUNTS_TABLE, apiKeys: env.API_KEYS_TABLE, domains: env.DOMAINS_TABLE },
    cursorSecret: env.CURSOR_SECRET,
    logLevel: env.LOG_LEVEL,
  });
  return services;
}
