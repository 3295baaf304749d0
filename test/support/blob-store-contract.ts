import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobRead, BlobStore, ListedBlob } from '../../lambdas/core/ports/blob-store';

export interface BlobStoreFixture {
  store: BlobStore;
  /** The store's own "now", by which it dates what it writes (S3's clock; the local store's injected one). */
  now(): Date;
  cleanup(): Promise<void>;
}

const mib = 1024 * 1024;
const invalidKeys = ['../x', '/abs', 'a//b', 'a/./b', '', 'a/', 'a/../b', 'a b', 'a\\b', 'x'.repeat(513)];

/** The bytes of a read that must have found a body; drains the stream so no file stays open. */
export async function bodyOf(read: BlobRead | undefined): Promise<Buffer> {
  if (read === undefined || read.notModified) throw new Error(`Expected a body, got ${JSON.stringify(read)}.`);
  const chunks: Buffer[] = [];
  for await (const chunk of read.body as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The keys of a listing, in the order it gave them. */
export async function collectKeys(listing: AsyncIterable<ListedBlob>): Promise<string[]> {
  const found: string[] = [];
  for await (const { key } of listing) found.push(key);
  return found;
}

/** A stream of random bytes made chunk by chunk, with the digest of what it produced. */
export function randomStream(bytes: number, chunkBytes = 256 * 1024): { stream: Readable; digest(): string } {
  const hash = createHash('sha256');
  async function* chunks() {
    for (let left = bytes; left > 0; left -= chunkBytes) {
      const chunk = randomBytes(Math.min(chunkBytes, left));
      hash.update(chunk);
      yield chunk;
    }
  }
  return { stream: Readable.from(chunks()), digest: () => hash.digest('hex') };
}

/**
 * The one BlobStore contract both stores pass: the directory store directly, the S3 store against
 * an S3 emulator. Each run gets a fresh store from `makeStore`.
 */
export function describeBlobStoreContract(name: string, makeStore: () => Promise<BlobStoreFixture>): void {
  describe(`${name} as a BlobStore`, () => {
    let fixture: BlobStoreFixture | undefined;
    let store: BlobStore;

    beforeAll(async () => {
      fixture = await makeStore();
      store = fixture.store;
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });
    const listed = async (prefix: string) => {
      const found: ListedBlob[] = [];
      for await (const blob of store.list(prefix)) found.push(blob);
      return found;
    };

    it('stores bytes and reads them back with their size', async () => {
      expect(await store.put('bytes/em_1', Buffer.from('hello'))).toEqual({ size: 5 });
      const read = await store.get('bytes/em_1');
      expect(read).toMatchObject({ notModified: false, size: 5 });
      expect((await bodyOf(read)).toString()).toBe('hello');
    });

    it('stores a stream', async () => {
      const body = Readable.from([Buffer.from('hel'), Buffer.from('lo '), Buffer.from('stream')]);
      expect(await store.put('stream/em_1', body)).toEqual({ size: 12 });
      expect((await bodyOf(await store.get('stream/em_1'))).toString()).toBe('hello stream');
    });

    it('round-trips a 25 MB stream with an identical SHA-256', async () => {
      const size = 25 * mib;
      const source = randomStream(size);
      expect(await store.put('large/em_1/raw', source.stream)).toEqual({ size });
      const read = await store.get('large/em_1/raw');
      if (read === undefined || read.notModified) throw new Error('The large blob is missing.');
      expect(read.size).toBe(size);
      const hash = createHash('sha256');
      let received = 0;
      for await (const chunk of read.body as AsyncIterable<Buffer>) {
        hash.update(chunk);
        received += chunk.length;
      }
      expect(received).toBe(size);
      expect(hash.digest('hex')).toBe(source.digest());
    });

    it('reads a missing key as undefined', async () => {
      expect(await store.get('missing/em_404')).toBeUndefined();
      expect(await store.get('missing/em_404', { ifNoneMatch: '"abc"' })).toBeUndefined();
    });

    it('reads a deleted blob as undefined', async () => {
      await store.put('deleted/em_1', Buffer.from('gone soon'));
      await store.delete('deleted/em_1');
      expect(await store.get('deleted/em_1')).toBeUndefined();
    });

    it('deletes an absent key without error', async () => {
      await expect(store.delete('absent/em_1/never-stored')).resolves.toBeUndefined();
    });

    it('answers notModified for the current ETag and the body for any other', async () => {
      await store.put('conditional/em_1', Buffer.from('current'));
      const first = await store.get('conditional/em_1');
      if (first === undefined) throw new Error('The blob is missing.');
      const { etag } = first;
      await bodyOf(first);
      expect(await store.get('conditional/em_1', { ifNoneMatch: etag })).toEqual({ notModified: true, etag });
      const other = await store.get('conditional/em_1', { ifNoneMatch: '"0123456789abcdef"' });
      expect(other).toMatchObject({ notModified: false, etag });
      expect((await bodyOf(other)).toString()).toBe('current');
    });

    it('gives a strong ETag that changes with the content', async () => {
      await store.put('etag/em_1', Buffer.from('first version'));
      const first = await store.get('etag/em_1');
      await bodyOf(first);
      await store.put('etag/em_1', Buffer.from('second version'));
      const second = await store.get('etag/em_1');
      expect((await bodyOf(second)).toString()).toBe('second version');
      expect(first?.etag).toMatch(/^"[^"]+"$/);
      expect(second?.etag).toMatch(/^"[^"]+"$/);
      expect(second?.etag).not.toBe(first?.etag);
    });

    it('lists exactly the keys under a prefix', async () => {
      const keys = ['list/a/b/1', 'list/a/b/2', 'list/a/b/c/3', 'list/a/bc/4', 'list/a/5', 'list/ab/6'];
      for (const key of keys) await store.put(key, Buffer.from(key));
      expect(await collectKeys(store.list('list/a/b/'))).toEqual(['list/a/b/1', 'list/a/b/2', 'list/a/b/c/3']);
      expect(await collectKeys(store.list('list/a/b'))).toEqual(['list/a/b/1', 'list/a/b/2', 'list/a/b/c/3', 'list/a/bc/4']);
      expect(await collectKeys(store.list('list/'))).toEqual([...keys].sort());
      expect(await collectKeys(store.list('list/none/'))).toEqual([]);
    });

    it('dates each listed blob by the time storage wrote it', async () => {
      await store.put('aged/em_1', Buffer.from('one'));
      const [blob] = await listed('aged/');
      const minuteMs = 60 * 1000;
      expect(blob?.key).toBe('aged/em_1');
      expect(Math.abs(blob!.written.getTime() - fixture!.now().getTime())).toBeLessThan(minuteMs);
    });

    it('lists in ascending key order across folders, as S3 does, and after a given key', async () => {
      // '-' < '.' < '/' < '0' < 'a': a folder's keys fall between its siblings by the '/' in them.
      const keys = ['order/a', 'order/a-x/1', 'order/a.b', 'order/a/b/c', 'order/a/c', 'order/a0', 'order/b/1'];
      for (const key of [...keys].reverse()) await store.put(key, Buffer.from(key));
      expect(await collectKeys(store.list('order/'))).toEqual(keys);
      expect(await collectKeys(store.list('order/', { startAfter: 'order/a.b' }))).toEqual(['order/a/b/c', 'order/a/c', 'order/a0', 'order/b/1']);
      expect(await collectKeys(store.list('order/', { startAfter: 'order/a/b/c' }))).toEqual(['order/a/c', 'order/a0', 'order/b/1']);
      // A key that is not stored places the start as well, as S3's StartAfter does.
      expect(await collectKeys(store.list('order/', { startAfter: 'order/a/bz' }))).toEqual(['order/a/c', 'order/a0', 'order/b/1']);
      expect(await collectKeys(store.list('order/', { startAfter: 'order/b/1' }))).toEqual([]);
    });

    it('deletes many blobs at once, absent ones without error, and nothing else', async () => {
      const keys = Array.from({ length: 30 }, (_, n) => `many/em_${n % 3}/part_${String(n).padStart(2, '0')}`);
      for (const key of keys) await store.put(key, Buffer.from(key));
      await store.deleteMany([...keys.slice(0, 20), 'many/em_9/never-stored']);
      expect(await collectKeys(store.list('many/'))).toEqual(keys.slice(20).sort());
      await expect(store.deleteMany([])).resolves.toBeUndefined();
      await store.deleteMany(keys.slice(20));
      expect(await collectKeys(store.list('many/'))).toEqual([]);
    });

    it('keeps a key and the keys below it apart', async () => {
      await store.put('nested/em_1', Buffer.from('parent'));
      await store.put('nested/em_1/part', Buffer.from('child'));
      expect((await bodyOf(await store.get('nested/em_1'))).toString()).toBe('parent');
      expect((await bodyOf(await store.get('nested/em_1/part'))).toString()).toBe('child');
      expect(await collectKeys(store.list('nested/'))).toEqual(['nested/em_1', 'nested/em_1/part']);
    });

    it('keeps the content type', async () => {
      await store.put('typed/em_1', Buffer.from('From: a@b.c\r\n\r\nhi'), { contentType: 'message/rfc822' });
      const read = await store.get('typed/em_1');
      expect(read).toMatchObject({ contentType: 'message/rfc822' });
      await bodyOf(read);
    });

    it.each(invalidKeys.map((key) => [JSON.stringify(key.length > 20 ? `${key.slice(0, 20)}…` : key), key]))(
      'refuses the key %s, which is no generated id',
      async (_label, key) => {
        await expect(async () => store.put(key, Buffer.from('x'))).rejects.toThrow();
        await expect(async () => store.get(key)).rejects.toThrow();
        await expect(async () => store.delete(key)).rejects.toThrow();
        await expect(async () => store.deleteMany(['valid/em_1', key])).rejects.toThrow();
      },
    );

    it('refuses a listing prefix that leaves the key space', async () => {
      await expect(collectKeys(store.list('../'))).rejects.toThrow();
      await expect(collectKeys(store.list('/abs/'))).rejects.toThrow();
    });
  });
}
