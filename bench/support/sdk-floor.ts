import type { FunctionAccess, ItemAction } from '../../lambdas/function-access';

/**
 * The AWS SDK a function cannot do without, as a module of its own: the clients and commands its
 * declared access needs (`lambdas/function-manifest.ts`) and nothing else, no code of the project.
 * Bundled and imported like the function, it tells how much of the function's cold import is the
 * SDK's alone, a floor no change to the project's own code goes below. The clients are built with
 * their defaults, so the floor is a lower bound (the adapters add their own configuration).
 */
export interface SdkFloor {
  /** Which clients and commands, e.g. `DynamoDB Get,Update + S3 read`: functions with the same share one bundle. */
  key: string;
  /** The module's source, resolved from the project root. */
  source: string;
}

/** The document client's command for each item action the functions are granted. */
const documentCommands: Record<ItemAction, string> = {
  GetItem: 'GetCommand',
  PutItem: 'PutCommand',
  UpdateItem: 'UpdateCommand',
  Query: 'QueryCommand',
  Scan: 'ScanCommand',
  BatchGetItem: 'BatchGetCommand',
  BatchWriteItem: 'BatchWriteCommand',
};

/** The S3 commands the blob store sends for each kind of access (`lambdas/adapters/blobs/s3-blob-store.ts`). */
const blobCommands: Record<keyof NonNullable<FunctionAccess['blobs']>, readonly string[]> = {
  read: ['GetObjectCommand'],
  write: ['PutObjectCommand', 'CreateMultipartUploadCommand', 'UploadPartCommand', 'CompleteMultipartUploadCommand', 'AbortMultipartUploadCommand'],
  delete: ['DeleteObjectCommand', 'DeleteObjectsCommand'],
  list: ['ListObjectsV2Command'],
};

export function sdkFloor(access: FunctionAccess): SdkFloor {
  const itemActions = [...new Set(Object.values(access.tables).flat())].sort();
  const blobKinds = (Object.keys(access.blobs ?? {}) as Array<keyof typeof blobCommands>).sort();
  const clients: Array<{ name: string; imports: string[]; from: string; client: string; commands: string[] }> = [];
  if (itemActions.length > 0) {
    const commands = itemActions.map((action) => documentCommands[action]);
    clients.push({
      name: `DynamoDB ${itemActions.join(',')}`,
      imports: [`import { DynamoDBClient } from '@aws-sdk/client-dynamodb';`],
      from: '@aws-sdk/lib-dynamodb',
      client: 'DynamoDBDocumentClient.from(new DynamoDBClient({}))',
      commands: ['DynamoDBDocumentClient', ...commands],
    });
  }
  if (blobKinds.length > 0) {
    clients.push({
      name: `S3 ${blobKinds.join(',')}`,
      imports: [],
      from: '@aws-sdk/client-s3',
      client: 'new S3Client({})',
      commands: ['S3Client', ...blobKinds.flatMap((kind) => blobCommands[kind])],
    });
  }
  if (access.secrets?.length) {
    clients.push({
      name: 'Secrets Manager',
      imports: [],
      from: '@aws-sdk/client-secrets-manager',
      client: 'new SecretsManagerClient({})',
      commands: ['SecretsManagerClient', 'GetSecretValueCommand'],
    });
  }
  // Every command is reachable from the handler, so that none is shaken out; none is sent at import.
  const lines = clients.flatMap((c, i) => [
    ...c.imports,
    `import { ${c.commands.join(', ')} } from '${c.from}';`,
    `const client${i} = ${c.client};`,
    `const commands${i} = [${c.commands.slice(1).join(', ')}];`,
  ]);
  const sends = clients.map((_, i) => `client${i}.send(new commands${i}[event.index](event.input))`);
  lines.push(`export const handler = async (event) => Promise.all([${sends.join(', ')}]);`);
  return { key: clients.map((c) => c.name).join(' + ') || 'no client', source: `${lines.join('\n')}\n` };
}
