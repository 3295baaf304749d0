import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../lambdas/core/ports/clock';
import { DirectoryBlobStore } from '../../lambdas/adapters/blobs/directory-blob-store';
import { blobDirectory } from '../blob-directory';
import type { LocalConfig } from '../config';
import { loadCursorSecret } from '../cursor-secret';
import { startLocalDynamoDb, type LocalDynamoDb } from '../local-dynamodb';
import { localNaming, localResolver, tableInputs, type Template } from './template';

export interface StackStorage {
  /** dynalite's endpoint, holding the template's tables and indexes. */
  dynamodbEndpoint: string;
  /** dynalite's thread channel: the functions' endpoints and the operator's client reach it without a loopback HTTP hop. */
  dynamodbChannel: LocalDynamoDb['requestHandler'];
  /** The blob directory the S3 stand-in serves, and the store over it as the operator sees it. */
  blobRoot: string;
  blobs: DirectoryBlobStore;
  cursorSecret: string;
  /** The template's secrets by ARN, each holding the local cursor secret. */
  secrets: ReadonlyMap<string, string>;
  close(): Promise<void>;
}

/**
 * The template's storage on this machine: its tables in dynalite (kept in `DATA_DIR/dynamodb`),
 * its bucket over the blob directory, its secret with the local cursor secret as its value.
 */
export async function startStackStorage(template: Template, config: Pick<LocalConfig, 'dataDir' | 'cursorSecret'>, clock: Clock): Promise<StackStorage> {
  const dynamodb = await startLocalDynamoDb({ path: config.dataDir && join(config.dataDir, 'dynamodb') });
  const admin = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: localNaming.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  for (const input of tableInputs(template)) {
    await admin.send(new CreateTableCommand(input as never)).catch((error: Error) => {
      if (!(error instanceof ResourceInUseException)) throw error;
    });
  }
  const blobFolder = await blobDirectory(config.dataDir);
  const blobRoot = blobFolder.root;
  const resolver = localResolver(template);
  const cursorSecret = config.cursorSecret ?? (await loadCursorSecret(config.dataDir));
  const secrets = new Map(
    Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::SecretsManager::Secret')
      .map(([logicalId]) => [resolver.arnOf(logicalId), cursorSecret] as const),
  );
  return {
    dynamodbEndpoint: dynamodb.endpoint,
    dynamodbChannel: dynamodb.requestHandler,
    blobRoot,
    // S3 stamps what it stores with AWS's time: in the stack's world, the functions' clock.
    blobs: new DirectoryBlobStore(blobRoot, clock),
    cursorSecret,
    secrets,
    close: async () => {
      admin.destroy();
      await dynamodb.close();
      await blobFolder.release();
    },
  };
}
