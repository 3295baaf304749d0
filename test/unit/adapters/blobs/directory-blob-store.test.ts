import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { DirectoryBlobStore } from '../../../../lambdas/adapters/blobs/directory-blob-store';
import { bodyOf, collectKeys, describeBlobStoreContract } from '../../../support/blob-store-contract';
import { TestClock } from '../../../support/test-clock';

const mib = 1024 * 1024;

describeBlobStoreContract('DirectoryBlobStore', async () => {
  const base = await mkdtemp(join(tmpdir(), 'blob-contract-'));
  // The store dates its blobs by the service's clock, whatever day the file system says it is.
  const clock = new TestClock();
  return { store: new DirectoryBlobStore(join(base, 'blobs'), clock), now: () => clock.now(), cleanup: () => rm(base, { recursive: true, force: true }) };
});

/** Every file under a directory, with its size: what a crash would leave behind. */
async function filesUnder(directory: string): Promise<{ path: string; size: number }[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => {
        const path = join(entry.parentPath, entry.name);
        return { path, size: (await stat(path)).size };
      }),
  );
}

describe('DirectoryBlobStore on disk', () => {
  let base: string;
  let root: string;
  let store: DirectoryBlobStore;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'blob-store-'));
    root = join(base, 'blobs');
    store = new DirectoryBlobStore(root);
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('removes the folders a delete leaves empty, and only those', async () => {
    await store.put('mail/m1/att/a1', Buffer.from('a'));
    await store.put('mail/m1/raw', Buffer.from('r'));
    await store.put('mail/m2/raw', Buffer.from('r'));
    await store.delete('mail/m1/att/a1');
    expect((await readdir(join(root, 'mail', 'm1'))).sort()).toEqual(['raw~blob']);
    await store.delete('mail/m1/raw');
    expect(await readdir(join(root, 'mail'))).toEqual(['m2']);
    await store.delete('mail/m2/raw');
    expect(await readdir(root)).toEqual([]);
  });

  it('removes every folder a batch delete leaves empty, its deletes running side by side', async () => {
    const keys = Array.from({ length: 120 }, (_, n) => `mail/m${n % 4}/att/a${n}`);
    for (const key of keys) await store.put(key, Buffer.from(key));
    await store.put('mail/m0/raw', Buffer.from('r'));
    await store.deleteMany(keys);
    expect(await collectKeys(store.list(''))).toEqual(['mail/m0/raw']);
    expect(await readdir(join(root, 'mail'))).toEqual(['m0']);
    expect(await readdir(join(root, 'mail', 'm0'))).toEqual(['raw~blob']);
  });

  it('keeps every put whole while deletes empty and remove the same folders', async () => {
    const rounds = Array.from({ length: 200 }, (_, n) => n);
    await Promise.all(rounds.map(async (n) => {
      await store.put(`mail/shared/att/a${n}`, Buffer.from(`blob ${n}`));
      await store.delete(`mail/shared/att/a${n}`);
    }));
    await Promise.all(rounds.map((n) => Promise.all([store.put(`mail/shared/att/b${n}`, Buffer.from(`blob ${n}`)), store.delete(`mail/shared/att/a${n}`)])));
    expect(await collectKeys(store.list('mail/'))).toHaveLength(200);
  });

  async function* failingAfter(bytes: number) {
    yield randomBytes(bytes);
    throw new Error('the sender went away');
  }

  it('leaves neither a temporary file nor the blob when the source fails midway', async () => {
    await expect(store.put('att/em_1/0', Readable.from(failingAfter(2 * mib)))).rejects.toThrow('the sender went away');
    expect(await store.get('att/em_1/0')).toBeUndefined();
    expect(await filesUnder(root)).toEqual([]);
  });

  it('keeps the previous blob whole when a replacing put fails', async () => {
    await store.put('raw/em_1', Buffer.from('first'));
    await expect(store.put('raw/em_1', Readable.from(failingAfter(mib)))).rejects.toThrow('the sender went away');
    expect((await bodyOf(await store.get('raw/em_1'))).toString()).toBe('first');
    expect(await filesUnder(root)).toHaveLength(1);
  });

  it('writes a stream to disk as it flows, and shows nothing until the put completes', async () => {
    let released = false;
    let sawFlowing = false;
    async function* slowSource() {
      for (let i = 0; i < 8; i += 1) {
        if (i === 4) {
          // Half the stream is sent: it must already be on disk, and still invisible to readers.
          for (let waited = 0; (await filesUnder(root)).every((file) => file.size < 4 * mib); waited += 10) {
            if (waited > 5_000) throw new Error('The store buffered the stream instead of writing it.');
            await sleep(10);
          }
          expect(await store.get('raw/em_2')).toBeUndefined();
          expect(await collectKeys(store.list(''))).toEqual([]);
          sawFlowing = true;
        }
        yield randomBytes(mib);
      }
      released = true;
    }
    expect(await store.put('raw/em_2', Readable.from(slowSource()))).toEqual({ size: 8 * mib });
    expect(released && sawFlowing).toBe(true);
    expect(await collectKeys(store.list(''))).toEqual(['raw/em_2']);
  });

  it('never writes outside its root', async () => {
    for (const key of ['../escape', 'a/../../escape', '../../escape', '..']) {
      await expect(async () => store.put(key, Buffer.from('x'))).rejects.toThrow();
    }
    await expect(collectKeys(store.list('../'))).rejects.toThrow();
    await store.put('inside/em_1', Buffer.from('x'));
    expect(await readdir(base)).toEqual(['blobs']);
  });
});
