import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { withDirectoryLock } from '../../../local/with-directory-lock';
import { folderPerTest } from '../../support/folder-per-test';

const scratch = folderPerTest('tempmail-lock-');

describe('withDirectoryLock', () => {
  it('lets one holder work at a time, and releases the lock after', async () => {
    const lock = join(scratch.path, 'work.lock');
    const order: string[] = [];
    const hold = (name: string) =>
      withDirectoryLock(lock, async () => {
        order.push(`${name} in`);
        await new Promise(setImmediate);
        order.push(`${name} out`);
        return name;
      });
    expect(await Promise.all([hold('a'), hold('b')])).toEqual(['a', 'b']);
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out']);
    await expect(mkdir(lock)).resolves.toBeUndefined();
  });

  it('takes over a lock whose holder has died', async () => {
    const lock = join(scratch.path, 'dead.lock');
    await mkdir(lock);
    // Beyond the kernel's largest pid: no process has it.
    await writeFile(join(lock, 'pid'), String(2 ** 22 + 1));
    await expect(withDirectoryLock(lock, async () => 'taken')).resolves.toBe('taken');
  });

  it('takes over a lock that stays without a pid, and waits on a live holder no longer than asked', async () => {
    const pidless = join(scratch.path, 'pidless.lock');
    await mkdir(pidless);
    await expect(withDirectoryLock(pidless, async () => 'taken', { pidlessStaleMs: 100 })).resolves.toBe('taken');

    const held = join(scratch.path, 'held.lock');
    await mkdir(held);
    await writeFile(join(held, 'pid'), String(process.pid));
    await expect(withDirectoryLock(held, async () => 'never', { withinMs: 0 })).rejects.toThrow(`held by pid ${process.pid}`);
  });

  it('does not take a lock from a holder that has not yet written its pid, however old the file looks', async () => {
    // A holder makes the lock, then writes its pid: a waiter may look in between. The lock's file
    // time says nothing of that (the tests' wall clock is a year ahead of the file system's).
    const fresh = join(scratch.path, 'fresh.lock');
    await mkdir(fresh);
    const longAgo = new Date(Date.now() - 365 * 24 * 60 * 60 * 1000);
    await utimes(fresh, longAgo, longAgo);
    await expect(withDirectoryLock(fresh, async () => 'taken', { withinMs: 600 })).rejects.toThrow('held by a holder that has not written its pid');
    expect(existsSync(fresh)).toBe(true);
  });
});
