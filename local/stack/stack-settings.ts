import type { LocalConfig } from '../config';

/** What `npm run start:stack` does with one setting of `npm start`'s. */
export type SettingHandling = { passed: string } | { ignored: string; variables: string[] };

/**
 * Every setting `npm start` takes (local/config.ts), and how the stack takes it: passed on as
 * the deployed stack gets it, or ignored, with why. Typed over every key of the configuration,
 * so that a new setting does not compile until it is placed here (and in docs/start-stack.md).
 */
export const stackSettings: { readonly [K in keyof Required<LocalConfig>]: SettingHandling } = {
  host: { passed: 'the address the gateway and the SMTP intake listen on' },
  port: { passed: "the gateway's port" },
  smtpPort: { passed: "the SMTP intake's port (SES's receiving)" },
  dataDir: { passed: "dynalite's tables, the bucket's blob directory, the cursor secret and the announced endpoints" },
  domains: { passed: "synthesized as the receipt rule's recipients (context `domains`), and added as the operator adds them" },
  env: { passed: 'synthesized as the stage (context `stage`): the environment keys are bound to' },
  messageTtlSeconds: { passed: "synthesized into the functions' environment (context `messageTtlSeconds`) when not the contract's" },
  emailTtlSeconds: { passed: "synthesized into the functions' environment (context `emailTtlSeconds`) when not the contract's" },
  cursorSecret: { passed: "the value of the template's secret, which the functions read from Secrets Manager" },
  logLevel: { passed: "every function's `LOG_LEVEL`, and the stack's own lines" },
  oidc: { passed: "the issuer the console signs in with, standing in for the template's user pool and its app client" },
  shortWindow: {
    variables: ['TEMPMAIL_SHORT_WINDOW_PER_KEY', 'TEMPMAIL_SHORT_WINDOW_PER_ACCOUNT'],
    ignored: "a local load-test knob: the deployed functions run the contract's short-window limits, which no setting of the stack changes",
  },
  supportContact: { passed: "synthesized into the console's published config.json (context `supportContact`), which the console front serves" },
};

/** The settings this configuration gives that the stack does not apply, with why: each is warned of at start. */
export function ignoredSettings(config: LocalConfig): { variables: string[]; reason: string }[] {
  return (Object.keys(stackSettings) as (keyof LocalConfig)[]).flatMap((key) => {
    const handling = stackSettings[key];
    return 'ignored' in handling && config[key] !== undefined ? [{ variables: handling.variables, reason: handling.ignored }] : [];
  });
}
