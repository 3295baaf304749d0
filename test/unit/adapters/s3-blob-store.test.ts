import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchBucket,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { partBytes, S3BlobStore } from '../../../lambdas/adapters/blobs/s3-blob-store';
import { BlobsNotDeleted, Unavailable } from '../../../lambdas/core/errors';
import { startFauxqs, type RunningFauxqs } from '../../../local/fauxqs-thread';
import { collectKeys, describeBlobStoreContract, randomStream } from '../../support/blob-store-contract';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

describe('S3BlobStore against fauxqs', () => {
  let emulator: RunningFauxqs;
  let client: S3Client;

  beforeAll(async () => {
    emulator = await startFauxqs();
    client = new S3Client({ endpoint: emulator.endpoint, forcePathStyle: true, region: 'us-east-1', credentials, maxAttempts: 1 });
    await client.send(new CreateBucketCommand({ Bucket: 'contract' }));
  });
  afterAll(async () => {
    client?.destroy();
    await emulator?.close();
  });

  describeBlobStoreContract('S3BlobStore', async () => {
    const store = new S3BlobStore(client, 'contract', { keyPrefix: 'blobs/' });
    return {
      store,
      // The emulator dates objects by this process's clock, as S3 by its own.
      now: () => new Date(),
      cleanup: async () => {
        await store.deleteMany(await collectKeys(store.list('')));
      },
    };
  });
});

describe('S3BlobStore with injected faults', () => {
  const client = new S3Client({ endpoint: 'http://127.0.0.1:9', forcePathStyle: true, region: 'us-east-1', credentials });
  const s3 = mockClient(client);
  const store = new S3BlobStore(client, 'blobs-bucket', { keyPrefix: 'blobs/' });
  const failure = (name: string, httpStatusCode: number) =>
    new S3ServiceException({ name, $fault: httpStatusCode >= 500 ? 'server' : 'client', $metadata: { httpStatusCode }, message: name });

  beforeEach(() => s3.reset());

  it.each([
    ['SlowDown', 503],
    ['ServiceUnavailable', 503],
    ['InternalError', 500],
    ['ThrottlingException', 400],
  ])('turns a %s put or get into 503 Unavailable', async (name, status) => {
    s3.on(PutObjectCommand).rejects(failure(name, status));
    s3.on(GetObjectCommand).rejects(failure(name, status));
    await expect(store.put('raw/em_1', Buffer.from('x'))).rejects.toBeInstanceOf(Unavailable);
    await expect(store.get('raw/em_1')).rejects.toBeInstanceOf(Unavailable);
  });

  it('turns a refused connection into 503 Unavailable', async () => {
    s3.on(GetObjectCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await expect(store.get('raw/em_1')).rejects.toBeInstanceOf(Unavailable);
  });

  it('lets a request error through unchanged', async () => {
    s3.on(GetObjectCommand).rejects(failure('AccessDenied', 403));
    await expect(store.get('raw/em_1')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('reads NoSuchKey as undefined, but not a missing bucket', async () => {
    s3.on(GetObjectCommand)
      .rejectsOnce(new NoSuchKey({ message: 'The specified key does not exist.', $metadata: { httpStatusCode: 404 } }))
      .rejectsOnce(new NoSuchBucket({ message: 'The specified bucket does not exist.', $metadata: { httpStatusCode: 404 } }));
    expect(await store.get('raw/em_404')).toBeUndefined();
    await expect(store.get('raw/em_404')).rejects.toBeInstanceOf(NoSuchBucket);
  });

  it("reads S3's 304 'Unknown' answer to a matching conditional get as notModified", async () => {
    s3.on(GetObjectCommand).rejects(failure('Unknown', 304));
    expect(await store.get('raw/em_1', { ifNoneMatch: '"abc"' })).toEqual({ notModified: true, etag: '"abc"' });
    expect(s3.commandCalls(GetObjectCommand)[0]!.args[0].input).toMatchObject({ Key: 'blobs/raw/em_1', IfNoneMatch: '"abc"' });
  });

  it('lists across pages with the continuation token', async () => {
    s3.on(ListObjectsV2Command)
      .resolvesOnce({ Contents: [{ Key: 'blobs/att/em_1/0', LastModified: new Date() }], IsTruncated: true, NextContinuationToken: 'page-2' })
      .resolvesOnce({ Contents: [{ Key: 'blobs/att/em_1/1', LastModified: new Date() }], IsTruncated: false });
    expect(await collectKeys(store.list('att/em_1/'))).toEqual(['att/em_1/0', 'att/em_1/1']);
    const inputs = s3.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input);
    expect(inputs).toEqual([
      expect.objectContaining({ Prefix: 'blobs/att/em_1/', ContinuationToken: undefined }),
      expect.objectContaining({ Prefix: 'blobs/att/em_1/', ContinuationToken: 'page-2' }),
    ]);
  });

  it('lists after a given key, and stops fetching pages once the reader stops', async () => {
    const written = new Date('2026-11-22T12:00:00.000Z');
    s3.on(ListObjectsV2Command)
      .resolvesOnce({ Contents: [{ Key: 'blobs/mail/2', LastModified: written }, { Key: 'blobs/mail/3', LastModified: written }], IsTruncated: true, NextContinuationToken: 'page-2' })
      .resolvesOnce({ Contents: [{ Key: 'blobs/mail/4', LastModified: written }], IsTruncated: false });
    for await (const blob of store.list('mail/', { startAfter: 'mail/1' })) {
      expect(blob).toEqual({ key: 'mail/2', written });
      break;
    }
    const inputs = s3.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input);
    expect(inputs).toEqual([expect.objectContaining({ Prefix: 'blobs/mail/', StartAfter: 'blobs/mail/1' })]);
  });

  it('deletes many blobs 1,000 keys a call, quietly', async () => {
    s3.on(DeleteObjectsCommand).resolves({});
    const keys = Array.from({ length: 2_500 }, (_, n) => `mail/m${n}/raw`);
    await store.deleteMany(keys);
    const inputs = s3.commandCalls(DeleteObjectsCommand).map((call) => call.args[0].input);
    expect(inputs.map((input) => input.Delete!.Objects!.length)).toEqual([1_000, 1_000, 500]);
    expect(inputs.flatMap((input) => input.Delete!.Objects!.map((object) => object.Key))).toEqual(keys.map((key) => `blobs/${key}`));
    for (const input of inputs) expect(input).toMatchObject({ Bucket: 'blobs-bucket', Delete: { Quiet: true } });
  });

  it('throws the keys S3 refused one by one, with its codes, after deleting the rest', async () => {
    s3.on(DeleteObjectsCommand)
      .resolvesOnce({ Errors: [{ Key: 'blobs/inbound/ses-2', Code: 'AccessDenied', Message: 'Access Denied' }] })
      .resolvesOnce({ Errors: [{ Key: 'blobs/inbound/ses-1500', Code: 'InternalError', Message: 'try again' }] });
    const keys = Array.from({ length: 1_501 }, (_, n) => `inbound/ses-${n}`);
    const failure = await store.deleteMany(keys).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BlobsNotDeleted);
    expect((failure as BlobsNotDeleted).failures).toEqual([
      { key: 'inbound/ses-2', reason: 'AccessDenied' },
      { key: 'inbound/ses-1500', reason: 'InternalError' },
    ]);
    expect((failure as BlobsNotDeleted).cause).toBeUndefined();
    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(2);
  });

  it('counts every key of a call that failed as a whole as left, and goes on with the next call', async () => {
    s3.on(DeleteObjectsCommand).rejectsOnce(failure('SlowDown', 503)).resolves({});
    const keys = Array.from({ length: 1_200 }, (_, n) => `mail/m${n}/raw`);
    const thrown = (await store.deleteMany(keys).catch((error: unknown) => error)) as BlobsNotDeleted;
    expect(thrown).toBeInstanceOf(BlobsNotDeleted);
    expect(thrown.failures).toHaveLength(1_000);
    expect(thrown.failures[0]).toEqual({ key: 'mail/m0/raw', reason: 'Unavailable' });
    expect(thrown.cause).toBeInstanceOf(Unavailable);
    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(2);
  });

  it('uploads a stream longer than one part in 8 MiB parts', async () => {
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-1' });
    s3.on(UploadPartCommand).callsFake((input: { PartNumber: number }) => ({ ETag: `"part-${input.PartNumber}"` }));
    s3.on(CompleteMultipartUploadCommand).resolves({ ETag: '"whole-3"' });
    const size = 2 * partBytes + 1000;
    expect(await store.put('raw/em_big', randomStream(size).stream, { contentType: 'message/rfc822' })).toEqual({ size });
    expect(s3.commandCalls(CreateMultipartUploadCommand)[0]!.args[0].input).toMatchObject({ Key: 'blobs/raw/em_big', ContentType: 'message/rfc822' });
    const parts = s3.commandCalls(UploadPartCommand).map((call) => (call.args[0].input.Body as Buffer).length);
    expect(parts).toEqual([partBytes, partBytes, 1000]);
    expect(s3.commandCalls(CompleteMultipartUploadCommand)[0]!.args[0].input.MultipartUpload?.Parts).toEqual([
      { PartNumber: 1, ETag: '"part-1"' },
      { PartNumber: 2, ETag: '"part-2"' },
      { PartNumber: 3, ETag: '"part-3"' },
    ]);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it('aborts the multipart upload when a part fails, and reports the failure', async () => {
    s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-2' });
    s3.on(UploadPartCommand).resolvesOnce({ ETag: '"part-1"' }).rejects(failure('SlowDown', 503));
    s3.on(AbortMultipartUploadCommand).resolves({});
    await expect(store.put('raw/em_big', randomStream(3 * partBytes).stream)).rejects.toBeInstanceOf(Unavailable);
    expect(s3.commandCalls(AbortMultipartUploadCommand)[0]!.args[0].input).toMatchObject({ UploadId: 'upload-2', Key: 'blobs/raw/em_big' });
    expect(s3.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
  });

  it('sends a short stream as one put', async () => {
    s3.on(PutObjectCommand).resolves({ ETag: '"small"' });
    expect(await store.put('raw/em_small', randomStream(1000).stream)).toEqual({ size: 1000 });
    expect((s3.commandCalls(PutObjectCommand)[0]!.args[0].input.Body as Buffer).length).toBe(1000);
    expect(s3.commandCalls(CreateMultipartUploadCommand)).toHaveLength(0);
  });
});
