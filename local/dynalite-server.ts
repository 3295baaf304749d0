import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface DynaliteOptions {
  /** LevelDB directory; without one the data lives in memory. */
  path?: string;
  port?: number;
}

export interface DynaliteServer {
  port: number;
  close(): Promise<void>;
}

/** dynalite, the DynamoDB API over LevelDB, listening on loopback in the calling thread. */
export async function listenDynalite(options: DynaliteOptions): Promise<DynaliteServer> {
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error?: Error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
