import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The local HMAC secret of list cursors: made once per data directory (owner-readable only), so
 * cursors survive a restart; in memory when there is no data directory.
 */
export async function loadCursorSecret(dataDir: string | undefined): Promise<string> {
  if (!dataDir) return randomBytes(32).toString('base64url');
  const file = join(dataDir, 'cursor-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}
