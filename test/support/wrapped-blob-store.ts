import type { BlobStore } from '../../lambdas/core/ports/blob-store';

/**
 * A blob store that hands every call to `blobs` as it came, but for the methods given: tests wrap
 * the store with it to watch or fail some calls, and a method the port gains passes through.
 */
export function wrappedBlobStore(blobs: BlobStore, overrides: Partial<BlobStore>): BlobStore {
  return {
    put: (key, body, options) => blobs.put(key, body, options),
    get: (key, options) => blobs.get(key, options),
    delete: (key) => blobs.delete(key),
    deleteMany: (keys) => blobs.deleteMany(keys),
    list: (prefix, options) => blobs.list(prefix, options),
    ...overrides,
  };
}
