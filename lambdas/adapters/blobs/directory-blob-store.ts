import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { Clock } from '../../core/ports/clock';
import { systemClock } from '../system-clock';
import { BlobsNotDeleted } from '../../core/errors';
import type { BlobRead, BlobStore, ListedBlob } from '../../core/ports/blob-store';
import { assertBlobKey, assertBlobPrefix } from './blob-keys';

/** Ends a blob's file name: `~` never occurs in a key, so a blob never collides with a key's folder. */
const blobSuffix = '~blob';
/** Marks a put's temporary file beside its final name; listings skip it. */
const tempMarker = '~tmp-';
/**
 * Fixed-size metadata before the bytes. ETag, size and content type live in the blob's own file,
 * so one rename publishes them together: a crash can never pair new bytes with an old ETag.
 */
const headerBytes = 1024;
const maxContentTypeBytes = 255;

interface BlobHeader {
  etag: string;
  size: number;
  contentType?: string;
}

/**
 * The local runtime's BlobStore: one file per blob under a root directory (`DATA_DIR/blobs`).
 * Puts stream into a temporary file and rename it into place, so a crash leaves at most a
 * temporary file, never a partial blob. A resolved put is as durable as the local item store
 * (dynalite's LevelDB writes without sync): it survives the process being killed, since the
 * written pages stay in the operating system's cache, and neither survives a power loss. An
 * fsync here would buy no durability that the message item pointing at the blob has.
 */
export class DirectoryBlobStore implements BlobStore {
  private readonly root: string;

  /**
   * `clock` dates each blob (its file's modification time), as S3 dates an object by its own
   * clock: a listing by age then compares the service's times with the service's times, never
   * with the file system's.
   */
  constructor(
    root: string,
    private readonly clock: Clock = systemClock,
  ) {
    this.root = resolve(root);
  }

  async put(key: string, body: Buffer | Readable, options: { contentType?: string } = {}): Promise<{ size: number }> {
    const file = this.fileOf(key);
    const { contentType } = options;
    if (contentType !== undefined && Buffer.byteLength(contentType) > maxContentTypeBytes) {
      throw new Error(`Blob content type longer than ${maxContentTypeBytes} bytes.`);
    }
    const temp = `${file.slice(0, -blobSuffix.length)}${tempMarker}${randomUUID()}`;
    const handle = await createInFolder(temp);
    let size: number;
    try {
      try {
        size = await writeBlob(handle, body, contentType, this.clock.now());
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (error) {
      await unlink(temp).catch(ignoreAbsent);
      throw error;
    }
    return { size };
  }

  async get(key: string, options: { ifNoneMatch?: string } = {}): Promise<BlobRead | undefined> {
    const file = this.fileOf(key);
    const handle = await open(file, 'r').catch(ignoreAbsent);
    if (handle === undefined) return undefined;
    let header: BlobHeader;
    try {
      header = await readHeader(handle);
    } catch (error) {
      await handle.close();
      throw error;
    }
    const { etag, size, contentType } = header;
    if (options.ifNoneMatch === etag) {
      await handle.close();
      return { notModified: true, etag };
    }
    // Reading through the handle opened above keeps bytes and header from the same file, even if a put replaces it now.
    const body = createReadStream(file, { fd: handle, start: headerBytes });
    return { notModified: false, body, size, etag, ...(contentType === undefined ? {} : { contentType }) };
  }

  /** Deletes the blob, then each folder above it that it leaves empty, as S3 has no folders to leave behind. */
  async delete(key: string): Promise<void> {
    const file = this.fileOf(key);
    await unlink(file).catch(ignoreAbsent);
    for (let folder = dirname(file); folder !== this.root && folder.startsWith(`${this.root}${sep}`); folder = dirname(folder)) {
      if (!(await removeIfEmpty(folder))) break;
    }
  }

  /** Every key at once: a file system has no batch delete, and unlinks of different files do not wait on each other. */
  async deleteMany(keys: readonly string[]): Promise<void> {
    for (const key of keys) assertBlobKey(key);
    const results = await Promise.allSettled(keys.map((key) => this.delete(key)));
    const failures = results.flatMap((result, index) =>
      result.status === 'rejected' ? [{ key: keys[index]!, reason: (result.reason as NodeJS.ErrnoException).code ?? (result.reason as Error).name }] : [],
    );
    if (failures.length > 0) throw new BlobsNotDeleted(failures);
  }

  /** A blob removed between the folder's read and its `stat` is left out, as S3 leaves out a key deleted before the page is made. */
  async *list(prefix: string, options: { startAfter?: string } = {}): AsyncIterable<ListedBlob> {
    assertBlobPrefix(prefix);
    for await (const key of this.walk(prefix.slice(0, prefix.lastIndexOf('/') + 1), prefix, options.startAfter ?? '')) {
      const written = await stat(this.fileOf(key)).catch(ignoreAbsent);
      if (written) yield { key, written: written.mtime };
    }
  }

  /**
   * Keys under one key folder (`''` or `a/b/`) after `startAfter`, in key order, descending only
   * into folders that can hold matches. A folder's entries are ordered by what they add to a key
   * (`name/` for a folder, `name` for a blob), so that each folder's keys come out between its
   * siblings' as S3's listing has them (`a.b` < `a/c` < `a0`).
   */
  private async *walk(folder: string, prefix: string, startAfter: string): AsyncGenerator<string> {
    const entries = (await readdir(this.inside(folder), { withFileTypes: true }).catch(ignoreAbsent)) ?? [];
    const children: { key: string; folder: boolean }[] = [];
    for (const entry of entries) {
      if (entry.isDirectory()) children.push({ key: `${folder}${entry.name}/`, folder: true });
      else if (entry.isFile() && entry.name.endsWith(blobSuffix)) children.push({ key: folder + entry.name.slice(0, -blobSuffix.length), folder: false });
    }
    children.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const child of children) {
      if (child.folder) {
        const within = child.key.startsWith(prefix) || prefix.startsWith(child.key);
        // A folder before `startAfter` that does not lead to it holds only keys before it.
        const passed = child.key < startAfter && !startAfter.startsWith(child.key);
        if (within && !passed) yield* this.walk(child.key, prefix, startAfter);
      } else if (child.key.startsWith(prefix) && child.key > startAfter) {
        yield child.key;
      }
    }
  }

  private fileOf(key: string): string {
    assertBlobKey(key);
    return this.inside(`${key}${blobSuffix}`);
  }

  /** Resolves a path under the root and refuses anything outside it, whatever the key checks let through. */
  private inside(path: string): string {
    const absolute = resolve(this.root, path);
    const fromRoot = relative(this.root, absolute);
    if (fromRoot === '..' || fromRoot.startsWith(`..${sep}`) || isAbsolute(fromRoot)) {
      throw new Error('Blob path resolves outside the store root.');
    }
    return absolute;
  }
}

/**
 * Creates a put's temporary file, making its folders only when they are missing (a mail's folder
 * at its first blob, its attachments' folder at the first attachment). A delete may remove a
 * folder it emptied between the two steps (it cannot once the file is there): the folders are
 * made again then.
 */
async function createInFolder(temp: string): Promise<FileHandle> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open(temp, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === folderAttempts) throw error;
    }
    await mkdir(dirname(temp), { recursive: true });
  }
}

/** Tries of making a put's folders when a concurrent delete keeps removing them. */
const folderAttempts = 5;

/** True when the folder was empty and is gone; false when something is in it (or it is gone already). */
async function removeIfEmpty(folder: string): Promise<boolean> {
  try {
    await rmdir(folder);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT') return false;
    throw error;
  }
}

/** Bytes gathered from a stream before they are written: a few writes for a large blob, one for a small one. */
const writeChunkBytes = 64 * 1024;

/**
 * Writes the body after the header's place, hashing as it goes, then the header in place, through
 * the one open handle; the rename that follows publishes header and bytes together. A body given
 * as bytes is written with its header at once.
 */
async function writeBlob(handle: FileHandle, body: Buffer | Readable, contentType: string | undefined, written: Date): Promise<number> {
  const hash = createHash('sha256');
  const header = (size: number): Buffer => encodeHeader({ etag: `"${hash.digest('hex')}"`, size, ...(contentType === undefined ? {} : { contentType }) });
  let size = 0;
  if (Buffer.isBuffer(body)) {
    hash.update(body);
    size = body.length;
    await writeFully(handle, [header(size), body], 0);
  } else {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for await (const chunk of body as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      hash.update(bytes);
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= writeChunkBytes) {
        await writeFully(handle, pending, headerBytes + size);
        size += pendingBytes;
        [pending, pendingBytes] = [[], 0];
      }
    }
    if (pendingBytes > 0) await writeFully(handle, pending, headerBytes + size);
    size += pendingBytes;
    await writeFully(handle, [header(size)], 0);
  }
  await handle.utimes(written, written);
  return size;
}

/** Writes every byte of `buffers` from `position` on: a write may take fewer bytes than it is given. */
async function writeFully(handle: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  let rest = buffers;
  let at = position;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest, at);
    at += bytesWritten;
    rest = skipBytes(rest, bytesWritten);
  }
}

function skipBytes(buffers: Buffer[], count: number): Buffer[] {
  let left = count;
  const rest: Buffer[] = [];
  for (const buffer of buffers) {
    if (left >= buffer.length) left -= buffer.length;
    else {
      rest.push(left > 0 ? buffer.subarray(left) : buffer);
      left = 0;
    }
  }
  return rest;
}

/** The fixed-size header: metadata as JSON, padded with spaces, ending in a newline. */
function encodeHeader(header: BlobHeader): Buffer {
  const json = JSON.stringify({ v: 1, ...header });
  if (Buffer.byteLength(json) >= headerBytes) throw new Error('Blob header does not fit.');
  const encoded = Buffer.alloc(headerBytes, ' ');
  encoded.write(json);
  encoded.write('\n', headerBytes - 1);
  return encoded;
}

async function readHeader(handle: FileHandle): Promise<BlobHeader> {
  const buffer = Buffer.alloc(headerBytes);
  const { bytesRead } = await handle.read(buffer, 0, headerBytes, 0);
  const parsed = bytesRead === headerBytes ? (JSON.parse(buffer.toString('utf8').trimEnd()) as Partial<BlobHeader>) : {};
  if (typeof parsed.etag !== 'string' || typeof parsed.size !== 'number') throw new Error('Corrupt blob header.');
  return parsed as BlobHeader;
}

/** Absence is an answer here, not a failure: undefined for a missing file or folder. */
function ignoreAbsent(error: unknown): undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
  throw error;
}
