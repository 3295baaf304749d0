import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parentPort, resourceLimits, workerData } from 'node:worker_threads';
import { installLambdaResponseStreaming } from '../lambda-response-streaming';
import { installFunctionClock } from './function-clock';

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

const { assetDir, file, exportName, clock } = workerData as { assetDir: string; file: string; exportName: string; clock?: SharedArrayBuffer };
if (clock) installFunctionClock(clock);

/**
 * Everything the function sends over the network, reported to the host as `host:port`: each HTTP
 * request (node:http and https, as the SDK sends them; fetch, as the token verifier does) and
 * each TCP connection. The host compares them with what its AWS endpoint judged, so a call that
 * went around the endpoint cannot pass unseen.
 */
const report = (kind: 'request' | 'connection', target: string) => parentPort!.postMessage({ outbound: { kind, target } });
const defaultPort = (protocol: string) => (protocol === 'https:' ? 443 : 80);
subscribe('http.client.request.start', (message) => {
  const { request } = message as { request: ClientRequest };
  const host = String(request.getHeader('host') ?? request.host);
  report('request', host.includes(':') ? host : `${host}:${defaultPort(request.protocol)}`);
});
subscribe('undici:request:create', (message) => {
  const origin = new URL(String((message as { request: { origin: string } }).request.origin));
  report('request', `${origin.hostname}:${origin.port || defaultPort(origin.protocol)}`);
});
subscribe('net.client.socket', (message) => {
  const { socket } = message as { socket: Socket };
  socket.once('connect', () => report('connection', `${socket.remoteAddress}:${socket.remotePort}`));
});
installLambdaResponseStreaming();
const load = createRequire(join(assetDir, 'index.js'));
const handler = (load(join(assetDir, file)) as Record<string, (...args: unknown[]) => Promise<unknown>>)[exportName];
if (typeof handler !== 'function') throw new Error(`${file}.${exportName} is not a function`);
// The end of the init phase: the host starts each invocation's time-out from here.
parentPort!.postMessage({ ready: { resourceLimits } });

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
