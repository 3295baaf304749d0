import { mkdir } from 'node:fs/promises';
import { runningEndpoint } from './endpoint-file';

/**
 * Takes a data directory for one local service (`npm start` or `npm run start:stack`): creates
 * it, and refuses it while another service announces a DynamoDB endpoint there that still
 * answers, since two services on one LevelDB and one blob directory would corrupt both. A
 * service stopped by kill -9 leaves an endpoint that no longer answers, and is taken over.
 */
export async function claimDataDir(dataDir: string | undefined): Promise<void> {
  if (!dataDir) return;
  await mkdir(dataDir, { recursive: true });
  const running = await runningEndpoint(dataDir);
  if (running) throw new Error(`another local service is using ${dataDir} (its DynamoDB answers at ${running})`);
}
