import { CreateBucketCommand, NoSuchBucket, S3Client } from '@aws-sdk/client-s3';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { partBytes, S3BlobStore } from '../../../../lambdas/adapters/blobs/s3-blob-store';
import { BlobsNotDeleted, Unavailable } from '../../../../lambdas/core/errors';
import { startFauxqs, type RunningFauxqs } from '../../../../local/fauxqs-thread';
import { bodyOf, collectKeys, describeBlobStoreContract, randomStream } from '../../../support/blob-store-contract';
import { runProcess } from '../../../support/run-process';
import { startS3Endpoint, type S3Endpoint } from '../../../support/s3-endpoint';

let s3: S3Endpoint;
beforeAll(async () => {
  s3 = await startS3Endpoint();
});
afterAll(() => s3.close());

describeBlobStoreContract('S3BlobStore on the S3 stand-in', async () => {
  const store = new S3BlobStore(s3.client(), s3.bucket, { keyPrefix: 'contract/' });
  return {
    store,
    now: () => s3.clock.now(),
    cleanup: async () => store.deleteMany(await collectKeys(store.list(''))),
  };
});

// The same contract against an S3 emulator the project did not write, so that the stand-in's
// reading of S3 is not the only one the adapter is held to.
describe('S3BlobStore on fauxqs', () => {
  let emulator: RunningFauxqs;
  let client: S3Client;
  beforeAll(async () => {
    emulator = await startFauxqs();
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    client = new S3Client({ endpoint: emulator.endpoint, forcePathStyle: true, region: 'us-east-1', credentials, maxAttempts: 1 });
    await client.send(new CreateBucketCommand({ Bucket: 'contract' }));
  });
  afterAll(async () => {
    client?.destroy();
    await emulator?.close();
  });

  describeBlobStoreContract('S3BlobStore', async () => {
    const store = new S3BlobStore(client, 'contract', { keyPrefix: 'blobs/' });
    // The emulator dates objects by this process's clock, as S3 by its own.
    return { store, now: () => new Date(), cleanup: async () => store.deleteMany(await collectKeys(store.list(''))) };
  });
});

/** The commands that reached S3 since the test began, in order. */
const commands = () => s3.requests.map((request) => request.command);

describe('S3BlobStore when S3 fails', () => {
  let store: S3BlobStore;
  beforeEach(() => {
    s3.reset();
    store = new S3BlobStore(s3.client(), s3.bucket, { keyPrefix: 'blobs/' });
  });

  it.each([
    ['SlowDown', 503],
    ['ServiceUnavailable', 503],
    ['InternalError', 500],
    ['ThrottlingException', 400],
    // A 5xx of a name nobody listed is still the service's fault, not the request's.
    ['BadGateway', 502],
  ])('turns a %s answer to a put or a get into 503 Unavailable', async (code, status) => {
    s3.fail({ command: 'PutObject', answer: { status, code } });
    s3.fail({ command: 'GetObject', answer: { status, code } });
    await expect(store.put('raw/em_1', Buffer.from('x'))).rejects.toBeInstanceOf(Unavailable);
    await expect(store.get('raw/em_1')).rejects.toBeInstanceOf(Unavailable);
  });

  it('turns a connection cut before any answer, or refused, into 503 Unavailable', async () => {
    s3.fail({ command: 'GetObject', answer: 'connection reset' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const refusing = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await runProcess(process.execPath, ['--import', 'tsx', join(__dirname, '../../../support/s3-read-outcomes.ts'), s3.url, refusing]);
    expect(JSON.parse(run.stdout)).toEqual([
      { thrown: 'Unavailable', cause: 'ECONNRESET' },
      { thrown: 'Unavailable', cause: 'ECONNREFUSED' },
    ]);
  });

  it('lets the SDK retry first, and maps only the failure that outlasts its attempts', async () => {
    const retrying = new S3BlobStore(s3.client({ maxAttempts: 2 }), s3.bucket, { keyPrefix: 'blobs/' });
    await retrying.put('raw/em_retried', Buffer.from('kept'));
    s3.fail({ command: 'GetObject', answer: { status: 500, code: 'InternalError' } });
    expect((await bodyOf(await retrying.get('raw/em_retried'))).toString()).toBe('kept');
    s3.fail({ command: 'GetObject', answer: { status: 500, code: 'InternalError' }, times: 2 });
    await expect(retrying.get('raw/em_retried')).rejects.toBeInstanceOf(Unavailable);
    expect(commands().filter((command) => command === 'GetObject')).toHaveLength(4);
  });

  it('lets a request error through unchanged', async () => {
    s3.fail({ command: 'GetObject', answer: { status: 403, code: 'AccessDenied' } });
    await expect(store.get('raw/em_1')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('reads a missing key as undefined, but not a missing bucket', async () => {
    expect(await store.get('raw/em_404')).toBeUndefined();
    await expect(new S3BlobStore(s3.client(), 'no-such-bucket').get('raw/em_404')).rejects.toBeInstanceOf(NoSuchBucket);
  });

  it('puts the mapping into a client once, however many stores share it', () => {
    const client = s3.client();
    new S3BlobStore(client, s3.bucket);
    new S3BlobStore(client, s3.bucket, { keyPrefix: 'other/' });
    expect(client.middlewareStack.identify().filter((name) => name.startsWith('tempmailStorageErrors'))).toHaveLength(1);
  });
});

describe('S3BlobStore listings', () => {
  let store: S3BlobStore;
  beforeAll(async () => {
    store = new S3BlobStore(s3.client(), s3.bucket, { keyPrefix: 'listed/' });
    for (const key of ['mail/1', 'mail/2', 'mail/3', 'mail/4']) await store.put(key, Buffer.from(key));
  });
  beforeEach(() => s3.reset());

  it('lists across pages, each asked for after the last', async () => {
    s3.pageKeys = 1;
    expect(await collectKeys(store.list('mail/'))).toEqual(['mail/1', 'mail/2', 'mail/3', 'mail/4']);
    expect(commands()).toEqual(Array(4).fill('ListObjectsV2'));
  });

  it('lists after a given key, and asks for no further page once the reader stops', async () => {
    s3.pageKeys = 2;
    const read: unknown[] = [];
    for await (const blob of store.list('mail/', { startAfter: 'mail/1' })) {
      read.push(blob);
      break;
    }
    expect(read).toEqual([{ key: 'mail/2', written: s3.clock.now() }]);
    expect(commands()).toEqual(['ListObjectsV2']);
  });
});

describe('S3BlobStore deleting many blobs', () => {
  let store: S3BlobStore;
  beforeEach(() => {
    s3.reset();
    store = new S3BlobStore(s3.client(), s3.bucket, { keyPrefix: 'deleted/' });
  });
  const keysOf = (count: number, name: (n: number) => string) => Array.from({ length: count }, (_, n) => name(n));

  it('deletes 1,000 keys a call (S3 refuses more), quietly', async () => {
    const keys = keysOf(2_500, (n) => `mail/m${n}/raw`);
    const stored = [keys[0]!, keys[999]!, keys[1_000]!, keys[2_499]!];
    for (const key of stored) await store.put(key, Buffer.from(key));
    s3.reset();
    await store.deleteMany(keys);
    expect(await collectKeys(store.list('mail/'))).toEqual([]);
    const calls = s3.requests.filter((request) => request.command === 'DeleteObjects');
    expect(calls.map((call) => call.input.Delete!.Objects.length)).toEqual([1_000, 1_000, 500]);
    expect(calls.every((call) => call.input.Delete!.Quiet)).toBe(true);
  });

  it('throws the keys S3 refused one by one, with its codes, after deleting the rest', async () => {
    const keys = keysOf(1_501, (n) => `inbound/ses-${n}`);
    for (const key of ['inbound/ses-1', 'inbound/ses-2', 'inbound/ses-1500']) await store.put(key, Buffer.from(key));
    s3.refuse(['deleted/inbound/ses-2', 'deleted/inbound/ses-1500']);
    const failure = await store.deleteMany(keys).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BlobsNotDeleted);
    expect((failure as BlobsNotDeleted).failures).toEqual([
      { key: 'inbound/ses-2', reason: 'AccessDenied' },
      { key: 'inbound/ses-1500', reason: 'AccessDenied' },
    ]);
    expect((failure as BlobsNotDeleted).cause).toBeUndefined();
    expect(await collectKeys(store.list('inbound/'))).toEqual(['inbound/ses-1500', 'inbound/ses-2']);
  });

  it('counts every key of a call that failed as a whole as left, and goes on with the next call', async () => {
    const keys = keysOf(1_200, (n) => `mail/m${String(n).padStart(4, '0')}/raw`);
    for (const key of [keys[0]!, keys[1_100]!]) await store.put(key, Buffer.from(key));
    s3.fail({ command: 'DeleteObjects', answer: { status: 503, code: 'SlowDown' } });
    const thrown = (await store.deleteMany(keys).catch((error: unknown) => error)) as BlobsNotDeleted;
    expect(thrown).toBeInstanceOf(BlobsNotDeleted);
    expect(thrown.failures).toHaveLength(1_000);
    expect(thrown.failures[0]).toEqual({ key: keys[0], reason: 'Unavailable' });
    expect(thrown.cause).toBeInstanceOf(Unavailable);
    expect(await collectKeys(store.list('mail/'))).toEqual([keys[0]]);
  });
});

describe('S3BlobStore uploads', () => {
  let store: S3BlobStore;
  beforeEach(() => {
    s3.reset();
    store = new S3BlobStore(s3.client(), s3.bucket, { keyPrefix: 'uploaded/' });
  });
  const partsSent = () => s3.requests.filter((request) => request.command === 'UploadPart').map((request) => request.bytes);

  it('uploads a stream longer than one part in 8 MiB parts', async () => {
    const size = 2 * partBytes + 1000;
    const source = randomStream(size);
    expect(await store.put('raw/em_big', source.stream, { contentType: 'message/rfc822' })).toEqual({ size });
    expect(partsSent()).toEqual([partBytes, partBytes, 1000]);
    expect(commands()).toEqual(['CreateMultipartUpload', 'UploadPart', 'UploadPart', 'UploadPart', 'CompleteMultipartUpload']);
    const read = await store.get('raw/em_big');
    expect(read).toMatchObject({ size, contentType: 'message/rfc822' });
    expect(await bodyOf(read)).toHaveLength(size);
  });

  it('aborts the multipart upload when a part fails, and reports the failure', async () => {
    s3.fail({ command: 'UploadPart', answer: { status: 503, code: 'SlowDown' }, after: 1 });
    await expect(store.put('raw/em_failed', randomStream(3 * partBytes).stream)).rejects.toBeInstanceOf(Unavailable);
    expect(commands()).toEqual(['CreateMultipartUpload', 'UploadPart', 'UploadPart', 'AbortMultipartUpload']);
    expect(await store.get('raw/em_failed')).toBeUndefined();
  });

  it('sends a short stream as one put', async () => {
    expect(await store.put('raw/em_small', randomStream(1000).stream)).toEqual({ size: 1000 });
    expect(s3.requests.map(({ command, bytes }) => ({ command, bytes }))).toEqual([{ command: 'PutObject', bytes: 1000 }]);
  });
});
