import { readLocalConfig } from '../config';
import { startStack } from './start-stack';

/** `npm run start:stack`: the synthesized stack on this machine until SIGINT or SIGTERM. */
async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const config = readLocalConfig(process.env);
  const runtime = await startStack(config);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`tempmail stopping (${signal})`);
    runtime.close().then(
      () => process.exit(0),
      (error: Error) => {
        console.error(`tempmail stopped with an error: ${error.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  console.log(
    `tempmail ready: api ${runtime.apiUrl} smtp smtp://${config.host}:${runtime.smtpPort} ` +
      `env ${config.env} domains ${config.domains.join(',')} data ${config.dataDir ?? '(memory)'}`,
  );
}

main().catch((error: Error) => {
  console.error(`tempmail failed to start: ${error.message}`);
  process.exit(1);
});
