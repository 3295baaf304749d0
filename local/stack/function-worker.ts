import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { installLambdaResponseStreaming } from '../lambda-response-streaming';

/**
 * One Lambda function's execution environment: loads its bundled asset (never the TypeScript
 * source) in a thread whose `process.env` is the function's template environment, and runs each
 * invocation the host sends. A streamed function's bytes go back as they are written.
 */
interface Invocation {
  id: number;
  event: unknown;
  context: Record<string, unknown>;
  streamed: boolean;
}

const { assetDir, file, exportName } = workerData as { assetDir: string; file: string; exportName: string };
installLambdaResponseStreaming();
const load = createRequire(join(assetDir, 'index.js'));
const handler = (load(join(assetDir, file)) as Record<string, (...args: unknown[]) => Promise<unknown>>)[exportName];
if (typeof handler !== 'function') throw new Error(`${file}.${exportName} is not a function`);

parentPort!.on('message', (invocation: Invocation) => {
  const started = Date.now();
  const deadline = started + Number(invocation.context.timeoutMs);
  const context = {
    ...invocation.context,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    callbackWaitsForEmptyEventLoop: true,
  };
  const run = async () => {
    if (!invocation.streamed) return handler(invocation.event, context);
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => parentPort!.postMessage({ id: invocation.id, chunk }));
    const done = new Promise((resolve) => stream.on('end', resolve));
    await handler(invocation.event, stream, context);
    if (!stream.writableEnded) stream.end();
    await done;
    return undefined;
  };
  run().then(
    (result) => parentPort!.postMessage({ id: invocation.id, result }),
    (error: Error) =>
      parentPort!.postMessage({ id: invocation.id, error: { errorType: error?.name ?? 'Error', errorMessage: String(error?.message ?? error) } }),
  );
});
