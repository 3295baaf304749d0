import type { Readable } from 'node:stream';

/** What a blob read found: the bytes as a stream, or that the caller's copy is current. */
export type BlobRead =
  | { notModified: true; etag: string }
  | { notModified: false; body: Readable; size: number; etag: string; contentType?: string };

/** A listed blob. */
export interface ListedBlob {
  key: string;
  /** When it was last written, by the storage's own clock (S3's LastModified, a file's mtime). */
  written: Date;
}

/**
 * Raw sources, attachments and large bodies: S3 in production, a directory locally. Keys are
 * generated ids of the form `segment/segment/…` (letters, digits, `_`, `-`, `.` but never `..`),
 * never filenames; any other key is refused with an error before storage is touched. A storage
 * fault is thrown, never read as an absent blob (S3's transient ones as 503 `Unavailable`). Both
 * implementations pass one shared contract suite (test/support/blob-store-contract.ts).
 */
export interface BlobStore {
  /** Stores a blob from bytes or a stream; resolves once it is stored as durably as the items that point at it, with its size. */
  put(key: string, body: Buffer | Readable, options?: { contentType?: string }): Promise<{ size: number }>;
  /** Reads a blob; undefined when absent; `notModified` when `ifNoneMatch` names its current ETag. */
  get(key: string, options?: { ifNoneMatch?: string }): Promise<BlobRead | undefined>;
  /** Deletes a blob; an absent one is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Deletes many blobs (S3: up to 1,000 a call); absent ones are not errors. Keys it could not
   * delete are thrown as `BlobsNotDeleted`, each with its reason: every key not named there is gone.
   */
  deleteMany(keys: readonly string[]): Promise<void>;
  /**
   * Every blob under a prefix in ascending key order, as S3 lists (keys are ASCII, so by code
   * unit), each with the time storage wrote it; with `startAfter`, only the keys after that one.
   * A caller may stop reading at any point: nothing further is fetched.
   */
  list(prefix: string, options?: { startAfter?: string }): AsyncIterable<ListedBlob>;
}
