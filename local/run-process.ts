import { apiReferencePath } from '../openapi/reference/api-reference';
import { defaultDataDir, readLocalConfig, type LocalConfig } from './config';
import { announceService, withdrawService } from './endpoint-file';

/** What a runner started: where it answers, and how it stops. */
export interface RunningService {
  apiUrl: string;
  smtpPort: number;
  /** The domains the stack's receipt rule covers (`npm run start:stack`); `npm start` receives for every registered one. */
  receiptRuleDomains?: string[];
  close(): Promise<void>;
}

/**
 * The process around a local runner (`npm start`, `npm run start:stack`): configuration from the
 * environment, the ready line once it serves, and a clean stop on SIGINT or SIGTERM.
 */
export function runProcess(start: (config: LocalConfig) => Promise<RunningService>): void {
  // Lambda runs Node.js 22; the SDK's notice about older local Node versions is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const main = async () => {
    const config = readLocalConfig(process.env);
    const runtime = await start(config);
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.log(`tempmail stopping (${signal})`);
      Promise.all([runtime.close(), config.dataDir && withdrawService(config.dataDir)]).then(
        () => process.exit(0),
        (error: Error) => {
          console.error(`tempmail stopped with an error: ${error.message}`);
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (config.dataDir) {
      const { apiUrl, smtpPort, receiptRuleDomains } = runtime;
      await announceService(config.dataDir, { apiUrl, smtpPort, env: config.env, ...(receiptRuleDomains ? { receiptRuleDomains } : {}) });
    }
    // Only now the ready line: whoever reads it may signal at once, and the handlers must be there.
    console.log(
      `tempmail ready: api ${runtime.apiUrl} smtp smtp://${config.host}:${runtime.smtpPort} ` +
        `env ${config.env} domains ${config.domains.join(',')} data ${config.dataDir ?? '(memory)'} reference ${runtime.apiUrl}${apiReferencePath} ` +
        `key: eval "$(${keyCommand(config.dataDir)})"`,
    );
  };
  main().catch((error: Error) => {
    console.error(`tempmail failed to start: ${error.message}`);
    process.exit(1);
  });
}

/** The command that opens a paid account on this service and exports its key, base URL and SMTP port. */
function keyCommand(dataDir: string | undefined): string {
  const command = 'npm run --silent admin -- account create --plan paid --format env';
  if (!dataDir || dataDir === defaultDataDir) return command;
  return /^[\w./-]+$/.test(dataDir) ? `DATA_DIR=${dataDir} ${command}` : `DATA_DIR='${dataDir.replace(/'/g, `'\\''`)}' ${command}`;
}
