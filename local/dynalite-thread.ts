import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { listenDynalite, type DynaliteOptions } from './dynalite-server';

/**
 * The body of the storage emulator's worker thread: dynalite listens here, so its request
 * handling and LevelDB work run beside the HTTP front and the SMTP intake instead of queuing
 * behind them on one event loop. The service's own client talks to it over the MessagePort
 * `channel` (dynalite-channel.ts); the loopback port serves other processes. Messages: the parent sends `close`; the thread answers
 * `{ port }` once listening, `{ error }` if it cannot start, `closed` once the data is closed.
 */
async function run(port: NonNullable<typeof parentPort>): Promise<void> {
  let server;
  try {
    const { channel, ...options } = workerData as DynaliteOptions & { channel: MessagePort };
    server = await listenDynalite(options);
    server.serve(channel);
  } catch (error) {
    port.postMessage({ error: (error as Error).message });
    return;
  }
  port.once('message', () => {
    server.close().then(
      () => port.postMessage('closed'),
      (error: Error) => port.postMessage({ error: error.message }),
    );
  });
  port.postMessage({ port: server.port });
}

if (parentPort) void run(parentPort);
