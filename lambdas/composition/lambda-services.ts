import * as z from 'zod/mini';
import { tableNamesFrom } from '../adapters/dynamodb/table-definitions';
import { createServices, type ApiServices } from './services';

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
