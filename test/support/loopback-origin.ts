import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from './run-process';

/** A request the origin's server received: what the browser really sent, whatever intercepted it. */
export interface ReceivedRequest {
  method: string;
  path: string;
}

/** A real web origin on loopback that serves one page, as a web app showing mail would. */
export interface LoopbackOrigin {
  /** `http://127.0.0.1:<port>` or `https://127.0.0.1:<port>`. */
  origin: string;
  /** Every request the server received, in order. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A self-signed certificate for 127.0.0.1, made with Debian's openssl (installed with the
 * browser by `ensure-system-packages.sh`) and valid for a day: the browser context that loads the
 * origin ignores certificate errors, so no authority is needed.
 */
async function selfSignedCertificate(): Promise<{ key: Buffer; cert: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), 'tempmail-origin-'));
  try {
    const made = await runProcess('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ]);
    if (made.code !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
    return { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Starts an origin on a free loopback port (`secure` for https): `handle` answers each request;
 * every request is recorded first, so a request the page made behind the test's back is seen.
 */
export async function startLoopbackOrigin(
  secure: boolean,
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LoopbackOrigin> {
  const received: ReceivedRequest[] = [];
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    received.push({ method: request.method ?? '', path: request.url ?? '' });
    handle(request, response);
  };
  const server: Server = secure ? createHttpsServer(await selfSignedCertificate(), listener) : createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A test that fails before it closes the origin must still let Jest end: the server alone keeps no process alive.
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${secure ? 'https' : 'http'}://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
