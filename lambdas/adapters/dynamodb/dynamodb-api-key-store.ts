import { GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStatus, ApiKeyStore } from '../../core/ports/api-key-store';
import { conditionally } from '../storage-errors';
import { readAllPages } from './read-all-pages';

interface ApiKeyItem {
  key_hash: string;
  key_id: string;
  account_id: string;
  env: string;
  status: ApiKeyStatus;
  created_at: string;
  label?: string;
  prefix?: string;
}

/** The index of an account's keys (table definitions: apiKeys). */
const byAccount = 'by_account';

/** API keys by the SHA-256 of the key: the clear key is never written. */
export class DynamoDbApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(record: ApiKeyRecord): Promise<void> {
    const item: ApiKeyItem = {
      key_hash: record.keyHash,
      key_id: record.keyId,
      account_id: record.accountId,
      env: record.env,
      status: record.status,
      created_at: record.createdAt,
      ...(record.label !== undefined ? { label: record.label } : {}),
      ...(record.prefix !== undefined ? { prefix: record.prefix } : {}),
    };
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(key_hash)' }),
    );
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { key_hash: keyHash }, ConsistentRead: true }));
    return Item ? fromItem(Item as ApiKeyItem) : undefined;
  }

  /** An account's keys, through the `by_account` index (the console's list, the operator's `key list`). */
  async listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
    return this.collect((start) =>
      new QueryCommand({
        TableName: this.tableName,
        IndexName: byAccount,
        KeyConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
        ExclusiveStartKey: start,
      }),
    );
  }

  /** A key by its id: the operator's `key revoke --key-id`, rare enough to scan for. */
  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const found = await this.collect((start) =>
      new ScanCommand({
        TableName: this.tableName,
        FilterExpression: 'key_id = :key',
        ExpressionAttributeValues: { ':key': keyId },
        ExclusiveStartKey: start,
      }),
    );
    return found[0];
  }

  /** Every record of a query or scan, page after page. */
  private async collect(command: (start: Record<string, unknown> | undefined) => QueryCommand | ScanCommand): Promise<ApiKeyRecord[]> {
    const items = await readAllPages(this.client, command);
    return items.map((item) => fromItem(item as unknown as ApiKeyItem));
  }

  async revoke(keyHash: string): Promise<boolean> {
    const revoked = await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { key_hash: keyHash },
          UpdateExpression: 'SET #status = :revoked',
          ConditionExpression: 'attribute_exists(key_hash)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked' },
        }),
      ),
    );
    return revoked !== undefined;
  }
}

function fromItem(item: ApiKeyItem): ApiKeyRecord {
  return {
    keyHash: item.key_hash,
    keyId: item.key_id,
    accountId: item.account_id,
    env: item.env,
    status: item.status,
    createdAt: item.created_at,
    ...(item.label !== undefined ? { label: item.label } : {}),
    ...(item.prefix !== undefined ? { prefix: item.prefix } : {}),
  };
}
