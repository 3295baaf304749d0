import { S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryBlobStore } from '../../lambdas/adapters/blobs/directory-blob-store';
import { s3Error, s3Operation, s3StandIn, type S3Operation } from '../../local/stack/s3-stand-in';
import { s3LimitRefusal } from '../../local/stack/service-limits';
import { TestClock } from './test-clock';

/** How a faulty request is answered: an S3 error document with its status, or a connection cut before any answer. */
export type S3FaultAnswer = { status: number; code: string } | 'connection reset';

export interface S3Fault {
  command: S3Operation['command'];
  answer: S3FaultAnswer;
  /** How many matching requests fail before requests go through again (default 1). */
  times?: number;
  /** How many matching requests go through before the first failure (default 0). */
  after?: number;
}

/** A request as it reached the endpoint: its command, with the bytes of content it carried. */
export type S3Request = S3Operation & { bytes: number };

export interface S3Endpoint {
  /** Where the endpoint answers, for a client built elsewhere (another process). */
  url: string;
  bucket: string;
  /** The clock S3 dates its objects by. */
  clock: TestClock;
  /** A client of this endpoint; one attempt per call unless told otherwise, so a fault reaches the caller. */
  client(options?: { maxAttempts?: number }): S3Client;
  /** Answers the next matching requests with a fault, at the HTTP level: nothing of them reaches storage. */
  fail(fault: S3Fault): void;
  /** Object keys a DeleteObjects may not delete: each is answered `AccessDenied` in its result, as S3 does. */
  refuse(objectKeys: Iterable<string>): void;
  /** The most keys in one page of a listing (S3's 1,000 unless set), so that paging shows with few objects. */
  pageKeys: number | undefined;
  /** The requests that reached the endpoint, faulty ones included, as the commands they are. */
  readonly requests: S3Request[];
  /** Forgets faults, refusals, the page size and the requests seen (not the objects). */
  reset(): void;
  close(): Promise<void>;
}

/**
 * The S3 stand-in of `npm run start:stack` (over a directory of its own) on a loopback port, with
 * S3's limits, and faults injected where S3's own arrive: in the HTTP answer. A client's middleware
 * (the storage error mapping) therefore meets them as it would meet S3's.
 */
export async function startS3Endpoint(bucket = 'blobs-bucket'): Promise<S3Endpoint> {
  const base = await mkdtemp(join(tmpdir(), 's3-endpoint-'));
  const root = join(base, 'blobs');
  const clock = new TestClock();
  const serve = s3StandIn(bucket, new DirectoryBlobStore(root, clock), root);
  let faults: Required<S3Fault>[] = [];
  let refused = new Set<string>();
  const requests: S3Request[] = [];
  const clients: S3Client[] = [];

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const operation = s3Operation(req.method ?? 'GET', url, body);
    if (!operation) return s3Error(res, 501, 'NotImplemented', `${req.method} ${url.pathname} is no operation the stand-in serves.`);
    // A streamed upload is framed in chunks (`aws-chunked`); its header gives the bytes of content.
    requests.push({ ...operation, bytes: Number(req.headers['x-amz-decoded-content-length'] ?? body.length) });
    const fault = faults.find((candidate) => candidate.command === operation.command && candidate.times > 0);
    if (fault && fault.after > 0) fault.after -= 1;
    else if (fault) {
      fault.times -= 1;
      if (fault.answer === 'connection reset') return void req.socket.destroy();
      return s3Error(res, fault.answer.status, fault.answer.code, `Injected ${fault.answer.code}.`);
    }
    const refusal = s3LimitRefusal(operation);
    if (refusal) return s3Error(res, refusal.status, refusal.code, refusal.message);
    if (operation.command === 'ListObjectsV2' && endpoint.pageKeys !== undefined && !url.searchParams.has('max-keys')) {
      url.searchParams.set('max-keys', String(endpoint.pageKeys));
    }
    await serve(req, res, url, operation, body, { mayList: async () => true, refusedKeys: refused });
  }

  const server = createServer((req, res) => {
    answer(req, res).catch((error: Error) => (res.headersSent ? res.destroy() : s3Error(res, 500, 'InternalError', error.message)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const endpoint: S3Endpoint = {
    url,
    bucket,
    clock,
    client(options = {}) {
      const client = new S3Client({
        endpoint: url,
        forcePathStyle: true,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        maxAttempts: options.maxAttempts ?? 1,
      });
      clients.push(client);
      return client;
    },
    fail(fault) {
      faults.push({ times: 1, after: 0, ...fault });
    },
    refuse(objectKeys) {
      refused = new Set([...refused, ...objectKeys]);
    },
    pageKeys: undefined,
    requests,
    reset() {
      faults = [];
      refused = new Set();
      endpoint.pageKeys = undefined;
      requests.length = 0;
    },
    async close() {
      for (const client of clients) client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(base, { recursive: true, force: true });
    },
  };
  return endpoint;
}
