import type { Readable } from 'node:stream';
import type { BlobStore } from '../../lambdas/core/ports/blob-store';

/**
 * A blob store that reads what it is given and keeps nothing: the parse's own work measured
 * without a storage back-end's cost.
 */
export const drainingBlobs = {
  put: async (_key: string, body: Buffer | Readable) => {
    if (Buffer.isBuffer(body)) return { size: body.length };
    let size = 0;
    for await (const chunk of body) size += (chunk as Buffer).length;
    return { size };
  },
  get: async () => undefined,
  delete: async () => undefined,
} as unknown as BlobStore;
