import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh folder in the system's temporary folder for each test of the file (or of the describe
 * block it is called in): made before the test, removed after it, read through `.path` while it runs.
 *
 * @example
 * const data = folderPerTest('tempmail-cli-');
 * it('…', async () => startTestService({ dataDir: data.path }));
 */
export function folderPerTest(prefix: string): { readonly path: string } {
  const folder = { path: '' };
  beforeEach(async () => {
    folder.path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(() => rm(folder.path, { recursive: true, force: true }));
  return folder;
}
