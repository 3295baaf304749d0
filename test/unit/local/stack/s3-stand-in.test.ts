import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { DirectoryBlobStore } from '../../../../lambdas/adapters/blobs/directory-blob-store';
import { s3Operation, s3StandIn } from '../../../../local/stack/s3-stand-in';

let blobRoot: string;
let server: Server;
/** Each GetObject served: the body the stand-in read from storage, and when its connection closed. */
const served: Array<{ body?: Readable; connectionClosed: Promise<unknown> }> = [];

beforeAll(async () => {
  blobRoot = await mkdtemp(join(tmpdir(), 'tempmail-s3-stand-in-'));
  const stored = new DirectoryBlobStore(blobRoot);
  await stored.put('mail/large', Buffer.alloc(8 * 1024 * 1024, 'a'));
  const blobs = Object.assign(Object.create(stored) as DirectoryBlobStore, {
    async get(key: string, options?: { ifNoneMatch?: string }) {
      const read = await stored.get(key, options);
      if (read && !read.notModified) served.at(-1)!.body = read.body;
      return read;
    },
  });
  const serve = s3StandIn('mail-bucket', blobs, blobRoot);
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    served.push({ connectionClosed: once(res, 'close') });
    void serve(req, res, url, s3Operation(req.method ?? 'GET', url)!, Buffer.alloc(0), { mayList: async () => true });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterAll(async () => {
  server.close();
  await rm(blobRoot, { recursive: true, force: true });
});

describe("start:stack's S3 stand-in", () => {
  it('closes the stored file when the client drops a GetObject part-way, as a bounded read does', async () => {
    const { port } = server.address() as AddressInfo;
    const response = await new Promise<import('node:http').IncomingMessage>((resolve) => get({ port, host: '127.0.0.1', path: '/mail-bucket/mail/large' }, resolve));
    expect(response.statusCode).toBe(200);
    await once(response, 'data');
    response.destroy();
    const [read] = served;
    await read!.connectionClosed;
    // What the server does on the connection's close runs before the next turn of the event loop.
    await new Promise(setImmediate);
    expect(read!.body!.destroyed).toBe(true);
  });
});
