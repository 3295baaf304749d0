import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BlobDirectory {
  root: string;
  /** Called when the service stops: removes the directory if it was made for this run alone. */
  release(): Promise<void>;
}

/**
 * Where a local service keeps its blobs (raw mail, attachments): `DATA_DIR/blobs`, which the
 * operator CLI reads too and which outlives the service; without a data directory, a temporary
 * one that goes with the service when it stops.
 */
export async function blobDirectory(dataDir: string | undefined): Promise<BlobDirectory> {
  if (dataDir) {
    const root = join(dataDir, 'blobs');
    await mkdir(root, { recursive: true });
    return { root, release: async () => undefined };
  }
  const root = await mkdtemp(join(tmpdir(), 'tempmail-blobs-'));
  return { root, release: () => rm(root, { recursive: true, force: true }) };
}
