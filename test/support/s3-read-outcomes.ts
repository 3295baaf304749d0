import { S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../lambdas/adapters/blobs/s3-blob-store';

/**
 * Run by a test as a plain Node process (`node --import tsx s3-read-outcomes.ts <endpoint>...`):
 * reads one blob through the S3 store at each endpoint and prints, as JSON, what each read threw.
 * Under Jest a network error of Node's core comes from another realm, and the SDK flattens it to
 * a bare message (its code lost); only a process of its own shows the error as Lambda meets it.
 */
async function outcome(endpoint: string): Promise<{ thrown: string; cause?: string }> {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials, maxAttempts: 1 });
  try {
    await new S3BlobStore(client, 'blobs-bucket').get('raw/em_1');
    return { thrown: 'nothing' };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { thrown: (error as Error).constructor.name, ...(cause === undefined ? {} : { cause }) };
  } finally {
    client.destroy();
  }
}

void (async () => {
  const outcomes = [];
  for (const endpoint of process.argv.slice(2)) outcomes.push(await outcome(endpoint));
  process.stdout.write(JSON.stringify(outcomes));
})();
