import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { BlobsNotDeleted } from '../../core/errors';
import type { BlobRead, BlobStore, ListedBlob } from '../../core/ports/blob-store';
import { mapStorageErrors } from '../storage-errors';
import { assertBlobKey, assertBlobPrefix } from './blob-keys';

/** Parts of a streamed upload: above S3's 5 MiB minimum, and the most of a stream held in memory. */
export const partBytes = 8 * 1024 * 1024;

/** S3's most keys in one DeleteObjects call. */
export const deleteBatchKeys = 1000;

export interface S3BlobStoreOptions {
  /** Put before every key (e.g. `blobs/`, ending in `/`); keys are listed without it. */
  keyPrefix?: string;
}

interface ObjectTarget {
  Bucket: string;
  Key: string;
  ContentType?: string;
}

/**
 * The production BlobStore: one S3 object per blob; streams go up in 8 MiB multipart parts. Its
 * client's failures arrive mapped (503 `Unavailable` for S3's "slow down" and any 5xx, or a
 * connection that broke): the store puts the shared mapping into the client it is given, once.
 */
export class S3BlobStore implements BlobStore {
  private readonly keyPrefix: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    options: S3BlobStoreOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? '';
    if (this.keyPrefix !== '' && !this.keyPrefix.endsWith('/')) throw new Error('An S3 key prefix must end with "/".');
    assertBlobPrefix(this.keyPrefix);
    mapStorageErrors(client);
  }

  /** Bytes, and streams shorter than one part, go up in one PutObject; longer streams in parts. */
  async put(key: string, body: Buffer | Readable, options: { contentType?: string } = {}): Promise<{ size: number }> {
    const target: ObjectTarget = { Bucket: this.bucket, Key: this.objectKey(key) };
    if (options.contentType !== undefined) target.ContentType = options.contentType;
    if (Buffer.isBuffer(body)) return this.putBytes(target, body);
    const parts = partsOf(body);
    const first = await parts.next();
    if (first.done) return this.putBytes(target, Buffer.alloc(0));
    if (first.value.length < partBytes) return this.putBytes(target, first.value);
    return this.putParts(target, first.value, parts);
  }

  async get(key: string, options: { ifNoneMatch?: string } = {}): Promise<BlobRead | undefined> {
    const { ifNoneMatch } = options;
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ...(ifNoneMatch === undefined ? {} : { IfNoneMatch: ifNoneMatch }),
    });
    let output;
    try {
      output = await this.client.send(command);
    } catch (error) {
      const { name, $metadata, $response } = (error ?? {}) as S3Answer;
      // A matching conditional read arrives as an error: HTTP 304, named 'Unknown' by the SDK.
      if ($metadata?.httpStatusCode === 304 && ifNoneMatch !== undefined) {
        return { notModified: true, etag: $response?.headers?.etag ?? ifNoneMatch };
      }
      if (name === 'NoSuchKey' || ($metadata?.httpStatusCode === 404 && name !== 'NoSuchBucket')) return undefined;
      throw error;
    }
    const { Body, ETag, ContentLength, ContentType } = output;
    if (!(Body instanceof Readable) || ETag === undefined) throw new Error('S3 answered a read without a body stream or ETag.');
    return {
      notModified: false,
      body: Body,
      size: ContentLength ?? 0,
      etag: ETag,
      ...(ContentType === undefined ? {} : { contentType: ContentType }),
    };
  }

  async delete(key: string): Promise<void> {
    const command = new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) });
    await this.client.send(command);
  }

  /**
   * One DeleteObjects call per 1,000 keys, in quiet mode: S3 then answers only the keys it could
   * not delete (an object delete is authorized key by key, so one call can half succeed). Those,
   * and every key of a call that failed as a whole, are thrown together once all calls are made.
   */
  async deleteMany(keys: readonly string[]): Promise<void> {
    const objectKeys = keys.map((key) => this.objectKey(key));
    const failures: { key: string; reason: string }[] = [];
    let callFailure: unknown;
    for (let start = 0; start < objectKeys.length; start += deleteBatchKeys) {
      const chunk = objectKeys.slice(start, start + deleteBatchKeys);
      const command = new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } });
      try {
        const { Errors } = await this.client.send(command);
        for (const error of Errors ?? []) {
          failures.push({ key: (error.Key ?? '').slice(this.keyPrefix.length), reason: error.Code ?? 'unknown' });
        }
      } catch (error) {
        callFailure ??= error;
        for (const key of chunk) failures.push({ key: key.slice(this.keyPrefix.length), reason: (error as Error).name ?? 'unknown' });
      }
    }
    if (failures.length > 0) throw new BlobsNotDeleted(failures, callFailure === undefined ? {} : { cause: callFailure });
  }

  async *list(prefix: string, options: { startAfter?: string } = {}): AsyncIterable<ListedBlob> {
    assertBlobPrefix(prefix);
    let token: string | undefined;
    do {
      const command = new ListObjectsV2Command({
        Bucket: this.bucket,
        Prefix: this.keyPrefix + prefix,
        ContinuationToken: token,
        ...(options.startAfter === undefined ? {} : { StartAfter: this.keyPrefix + options.startAfter }),
      });
      const page = await this.client.send(command);
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || object.LastModified === undefined) continue;
        yield { key: object.Key.slice(this.keyPrefix.length), written: object.LastModified };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return this.keyPrefix + key;
  }

  private async putBytes(target: ObjectTarget, bytes: Buffer): Promise<{ size: number }> {
    const command = new PutObjectCommand({ ...target, Body: bytes, ContentLength: bytes.length });
    await this.client.send(command);
    return { size: bytes.length };
  }

  /** A multipart upload, one part in flight at a time; aborted if the source or S3 fails. */
  private async putParts(target: ObjectTarget, first: Buffer, rest: AsyncGenerator<Buffer>): Promise<{ size: number }> {
    const created = await this.client.send(new CreateMultipartUploadCommand(target));
    const upload = { Bucket: target.Bucket, Key: target.Key, UploadId: created.UploadId };
    const completed: CompletedPart[] = [];
    let size = 0;
    try {
      for (let part: Buffer | undefined = first; part !== undefined; ) {
        const PartNumber = completed.length + 1;
        const command = new UploadPartCommand({ ...upload, PartNumber, Body: part, ContentLength: part.length });
        const { ETag } = await this.client.send(command);
        completed.push({ PartNumber, ETag });
        size += part.length;
        const next = await rest.next();
        part = next.done ? undefined : next.value;
      }
      const complete = new CompleteMultipartUploadCommand({ ...upload, MultipartUpload: { Parts: completed } });
      await this.client.send(complete);
      return { size };
    } catch (error) {
      await rest.return(undefined);
      // Best effort: the failure that matters is the one thrown below; an upload left behind is
      // invisible to reads and listings, and only costs storage until it is aborted.
      await this.client.send(new AbortMultipartUploadCommand(upload)).catch(() => undefined);
      throw error;
    }
  }
}

/** What S3's error answers to a read carry that the store judges: a missing key, or a matching ETag. */
interface S3Answer {
  name?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string | undefined> };
}

/** Cuts a stream into parts of exactly `partBytes`, the last one shorter; holds one part at a time. */
async function* partsOf(stream: Readable): AsyncGenerator<Buffer> {
  let chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (length + bytes.length >= partBytes) {
      const take = partBytes - length;
      chunks.push(bytes.subarray(0, take));
      yield Buffer.concat(chunks, partBytes);
      chunks = [];
      length = 0;
      bytes = bytes.subarray(take);
    }
    if (bytes.length > 0) {
      chunks.push(bytes);
      length += bytes.length;
    }
  }
  if (length > 0) yield Buffer.concat(chunks, length);
}
