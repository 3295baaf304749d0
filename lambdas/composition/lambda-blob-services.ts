import { S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../adapters/blobs/s3-blob-store';
import { functionEnvironmentNames, readFunctionEnvironment, requiredVariable } from './function-environment';
import { withLambdaServices } from './lambda-services';
import type { BlobServices } from './services';

let services: BlobServices | undefined;

/**
 * The composition root of the functions that touch blobs (the three file-serving routes, the SES
 * parser, the sweeper): the common services plus S3. Kept apart so that the S3 client is bundled
 * only into the functions that use it, which keeps the others' cold start short.
 */
export function lambdaBlobServices(): BlobServices {
  if (services) return services;
  const bucket = requiredVariable(readFunctionEnvironment(process.env).BLOB_BUCKET, functionEnvironmentNames.blobBucket);
  services = withLambdaServices({ blobs: new S3BlobStore(new S3Client({}), bucket) });
  return services;
}
