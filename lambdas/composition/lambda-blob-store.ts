import { S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../adapters/blobs/s3-blob-store';
import type { BlobStore } from '../core/ports/blob-store';
import { functionEnvironmentNames, readFunctionEnvironment, requiredVariable } from './function-environment';

let store: BlobStore | undefined;

/**
 * The blob store of a function whose manifest row has blob access: S3, in the bucket the stack
 * names. Built at the first request that needs it; only those functions' bundles hold the S3
 * client (bundle-defines.ts), which keeps the others' cold start short.
 */
export function lambdaBlobStore(): BlobStore {
  if (store) return store;
  const bucket = requiredVariable(readFunctionEnvironment(process.env)[functionEnvironmentNames.blobBucket], functionEnvironmentNames.blobBucket);
  store = new S3BlobStore(new S3Client({}), bucket);
  return store;
}
