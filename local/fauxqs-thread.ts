import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * fauxqs (the SQS and S3 emulator) in a worker thread of this process, listening on loopback only
 * (its `startFauxqs` binds every interface). It ships ES modules only, which a CommonJS runtime
 * (jest's) cannot `require`, so the thread imports it.
 */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.entry).then(async ({ buildApp }) => {
  const app = buildApp({ logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  parentPort.once('message', () => app.close().then(() => parentPort.close()));
  parentPort.postMessage({ address });
});
`;

export interface RunningFauxqs {
  /** `http://127.0.0.1:<port>`: SQS (JSON protocol) and path-style S3. */
  endpoint: string;
  close(): Promise<void>;
}

/** fauxqs exports only an `import` entry, which `require.resolve` cannot see. */
function fauxqsEntry(): string {
  for (const modules of require.resolve.paths('fauxqs') ?? []) {
    const manifest = join(modules, 'fauxqs', 'package.json');
    if (!existsSync(manifest)) continue;
    const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: { '.': { import: { default: string } } } };
    return pathToFileURL(join(modules, 'fauxqs', exports['.'].import.default)).href;
  }
  throw new Error('fauxqs is not installed (a development dependency).');
}

export async function startFauxqs(): Promise<RunningFauxqs> {
  const thread = new Worker(threadSource, { eval: true, workerData: { entry: fauxqsEntry() } });
  const [{ address }] = (await once(thread, 'message')) as [{ address: string }];
  return {
    endpoint: address,
    close: async () => {
      const exited = once(thread, 'exit');
      thread.postMessage('stop');
      await exited;
    },
  };
}
