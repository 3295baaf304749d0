import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapStorageErrors } from '../storage-errors';

export interface DocumentClientOptions {
  /** A DynamoDB-compatible endpoint (the local dynalite); the SDK's default when absent. */
  endpoint?: string;
  region?: string;
  /** How requests reach the endpoint, when not over HTTP (the local runtime's storage thread). */
  requestHandler?: DynamoDBClientConfig['requestHandler'];
}

/**
 * The document client every DynamoDB adapter shares; built once per composition root. Its failures
 * arrive already mapped (503 `Unavailable`, `PermanentStorageFault`): the stores send, and catch only
 * the condition failures they expect.
 */
export function createDocumentClient(options: DocumentClientOptions = {}): DynamoDBDocumentClient {
  const local = options.endpoint !== undefined;
  const client = new DynamoDBClient({
    ...(local
      ? { endpoint: options.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    region: options.region ?? (local ? 'local' : undefined),
    ...(options.requestHandler ? { requestHandler: options.requestHandler } : {}),
    maxAttempts: 3,
  });
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  mapStorageErrors(documents);
  return documents;
}
