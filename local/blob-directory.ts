import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a local service keeps its blobs (raw mail, attachments): `DATA_DIR/blobs`, which the
 * operator CLI reads too; without a data directory, a fresh temporary one.
 */
export async function blobDirectory(dataDir: string | undefined): Promise<string> {
  const root = dataDir ? join(dataDir, 'blobs') : await mkdtemp(join(tmpdir(), 'tempmail-blobs-'));
  await mkdir(root, { recursive: true });
  return root;
}
