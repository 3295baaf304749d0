import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import type { MessagePort } from 'node:worker_threads';
import { makeDynaliteWritesAtomic } from './dynalite-atomic-writes';
import { serveChannel } from './dynalite-channel';

export interface DynaliteOptions {
  /** LevelDB directory; without one the data lives in memory. */
  path?: string;
  port?: number;
}

export interface DynaliteServer {
  port: number;
  /** Answers the requests posted on a MessagePort as well (see dynalite-channel.ts). */
  serve(channel: MessagePort): void;
  close(): Promise<void>;
}

/**
 * dynalite, the DynamoDB API over LevelDB, listening on loopback in the calling thread. Each item
 * is written with its index entries atomically, so a killed process never lists what it cannot read.
 */
export async function listenDynalite(options: DynaliteOptions): Promise<DynaliteServer> {
  makeDynaliteWritesAtomic();
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    serve: (channel) => serveChannel(channel, server),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error?: Error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
