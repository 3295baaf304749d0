import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isRunning } from './is-running';

/** How often a process waiting for the lock looks again. */
const pollMs = 250;

export interface LockOptions {
  /** How long to wait for the lock before failing, naming its holder (default: without end). */
  withinMs?: number;
  /**
   * How long a lock may be seen without its holder's pid before its taker counts as dead (a holder
   * writes its pid the moment it has made the lock). Measured by the waiter's monotonic clock.
   */
  pidlessStaleMs?: number;
}

/**
 * Runs `work` while holding `lock`, a folder only one process can make, with the holder's pid in
 * it; the others wait. A lock whose holder has died, or that stays without a pid for
 * `pidlessStaleMs` (default 10 s), is taken over. Staleness is never judged by the lock's file
 * time against the wall clock: the two need not agree (the tests run with the wall clock shifted
 * a year, under which every lock made a moment ago looked a year old and was taken from its holder
 * before it had written its pid). Used where processes share one costly result (the stack's
 * synthesis, the packed client): `work` should first look whether another holder has made it meanwhile.
 */
export async function withDirectoryLock<T>(lock: string, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const { withinMs = Infinity, pidlessStaleMs = 10_000 } = options;
  const owner = join(lock, 'pid');
  const started = performance.now();
  let pidlessSince: number | undefined;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await readFile(owner, 'utf8').catch(() => 'NaN'));
      const now = performance.now();
      if (Number.isInteger(holder)) pidlessSince = undefined;
      else pidlessSince ??= now;
      const stale = pidlessSince === undefined ? !isRunning(holder) : now - pidlessSince >= pidlessStaleMs;
      if (stale) {
        await rm(lock, { recursive: true, force: true });
        pidlessSince = undefined;
      } else if (now - started > withinMs) throw new Error(`${lock} was not released within ${withinMs} ms (held by ${pidlessSince === undefined ? `pid ${holder}` : 'a holder that has not written its pid'})`);
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
