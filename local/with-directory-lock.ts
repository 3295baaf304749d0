import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isRunning } from './is-running';

/** How often a process waiting for the lock looks again. */
const pollMs = 250;
/** How old a lock without its holder's pid may be before its taker counts as dead (it writes the pid at once). */
const pidlessStaleMs = 10_000;

/**
 * Runs `work` while holding `lock`, a folder only one process can make, with the holder's pid in
 * it; the others wait. A lock whose holder has died, or that was made and never given a pid long
 * ago, is taken over. `withinMs` bounds the wait: past it, the call fails naming the holder.
 * Used where processes share one costly result (the stack's synthesis, the packed client):
 * `work` should first look whether another holder has made it meanwhile.
 */
export async function withDirectoryLock<T>(lock: string, work: () => Promise<T>, withinMs = Infinity): Promise<T> {
  const owner = join(lock, 'pid');
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await readFile(owner, 'utf8').catch(() => 'NaN'));
      const stale = Number.isInteger(holder)
        ? !isRunning(holder)
        : Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs > pidlessStaleMs;
      if (stale) await rm(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} was not released within ${withinMs} ms (held by pid ${holder})`);
      else await delay(pollMs);
    }
  }
  try {
    await writeFile(owner, String(process.pid));
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
