import * as z from 'zod';
import { logLevels, type LogLevel } from '../lambdas/adapters/json-logger';
import { environmentPattern } from '../lambdas/core/api-keys';
import { emailLifetimeSeconds, messageLifetimeSeconds } from '../lambdas/core/lifetimes';
import { shortWindowLimits } from '../lambdas/core/short-window';
import { localConsoleClientId } from './local-oidc-issuer';
import { supportContactProblem } from '../console/support-contact';
import { functionEnvironmentNames as names } from '../lambdas/composition/function-environment';

/** Where `npm start` and the operator CLI keep dynalite's files, blobs and the cursor secret unless `DATA_DIR` says otherwise. */
export const defaultDataDir = '.data';

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
const seconds = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/**
 * The local runtime's environment (DESIGN: local operator interface), validated once at start. The
 * variables it shares with the functions are named by their one list (function-environment.ts).
 */
const localEnvironment = z.object({
  PORT: port(3000),
  SMTP_PORT: port(2525),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default(defaultDataDir),
  TEMPMAIL_DOMAINS: z
    .string()
    .default('tempmail.localhost')
    .transform((list) => list.split(',').map((domain) => domain.trim()).filter(Boolean)),
  [names.stage]: z.string().regex(environmentPattern).default('local'),
  [names.messageTtlSeconds]: seconds(messageLifetimeSeconds),
  [names.emailTtlSeconds]: seconds(emailLifetimeSeconds),
  TEMPMAIL_CURSOR_SECRET: z.string().min(32).optional(),
  TEMPMAIL_SHORT_WINDOW_PER_KEY: z.coerce.number().int().min(1).optional(),
  TEMPMAIL_SHORT_WINDOW_PER_ACCOUNT: z.coerce.number().int().min(1).optional(),
  [names.logLevel]: z.enum(logLevels).default('warn'),
  [names.oidcIssuer]: z.url().optional(),
  [names.oidcClientId]: z.string().min(1).optional(),
  TEMPMAIL_SUPPORT_CONTACT: z
    .string()
    .superRefine((value, context) => {
      const problem = supportContactProblem(value);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
}).superRefine((env, context) => {
  // A client id is the issuer's: without the issuer, the console would sign in at the local one
  // with its own client, and the id given would be dropped without a word.
  if (env[names.oidcClientId] !== undefined && env[names.oidcIssuer] === undefined) {
    context.addIssue({
      code: 'custom',
      path: [names.oidcClientId],
      message: `is the client of an issuer, and ${names.oidcIssuer} is not set: set both (an outside issuer), or neither (the local issuer under /oidc)`,
    });
  }
});

export interface LocalConfig {
  host: string;
  /** HTTP API port; 0 picks a free one. */
  port: number;
  /** SMTP intake port; 0 picks a free one. */
  smtpPort: number;
  /** Where dynalite's LevelDB, blobs and the cursor secret live; `undefined` keeps all in memory. */
  dataDir: string | undefined;
  domains: string[];
  env: string;
  messageTtlSeconds: number;
  emailTtlSeconds: number;
  cursorSecret: string | undefined;
  /** Short-window limits raised for a load test (local only); the contract's (core/short-window.ts) otherwise. */
  shortWindow?: { perKey: number; perAccount: number };
  logLevel: LogLevel;
  /** The console's OpenID Connect issuer and client id; absent: the local issuer under `/oidc`. */
  oidc?: { issuer: string; clientId: string };
  /** Whom customers ask for more requests (shown by the console); absent: "the operator". */
  supportContact?: string;
}

/** Reads the local runtime's configuration from an environment, or explains what is wrong. */
export function readLocalConfig(environment: NodeJS.ProcessEnv): LocalConfig {
  const parsed = localEnvironment.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const env = parsed.data;
  const issuer = env[names.oidcIssuer];
  return {
    host: env.HOST,
    port: env.PORT,
    smtpPort: env.SMTP_PORT,
    dataDir: env.DATA_DIR,
    domains: env.TEMPMAIL_DOMAINS,
    env: env[names.stage],
    messageTtlSeconds: env[names.messageTtlSeconds],
    emailTtlSeconds: env[names.emailTtlSeconds],
    cursorSecret: env.TEMPMAIL_CURSOR_SECRET,
    ...(env.TEMPMAIL_SHORT_WINDOW_PER_KEY || env.TEMPMAIL_SHORT_WINDOW_PER_ACCOUNT
      ? {
          shortWindow: {
            perKey: env.TEMPMAIL_SHORT_WINDOW_PER_KEY ?? shortWindowLimits.perKey,
            perAccount: env.TEMPMAIL_SHORT_WINDOW_PER_ACCOUNT ?? shortWindowLimits.perAccount,
          },
        }
      : {}),
    logLevel: env[names.logLevel],
    ...(env.TEMPMAIL_SUPPORT_CONTACT ? { supportContact: env.TEMPMAIL_SUPPORT_CONTACT } : {}),
    ...(issuer !== undefined ? { oidc: { issuer, clientId: env[names.oidcClientId] ?? localConsoleClientId } } : {}),
  };
}
