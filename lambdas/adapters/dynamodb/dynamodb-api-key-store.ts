import { GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, ApiKeyStatus, ApiKeyStore } from '../../core/ports';
import { conditionally, guardStorage } from './storage-errors';

interface ApiKeyItem {
  key_hash: string;
  key_id: string;
  account_id: string;
  env: string;
  status: ApiKeyStatus;
  created_at: string;
}

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
    };
    await guardStorage(() =>
      this.client.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(key_hash)' }),
      ),
    );
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await guardStorage(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { key_hash: keyHash }, ConsistentRead: true })),
    );
    return Item ? fromItem(Item as ApiKeyItem) : undefined;
  }

  async listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
    return this.scan('account_id', accountId);
  }

  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    return (await this.scan('key_id', keyId))[0];
  }

  /** The operator's reads: keys are found by hash only on the request path, so these scan. */
  private async scan(attribute: 'account_id' | 'key_id', value: string): Promise<ApiKeyRecord[]> {
    const records: ApiKeyRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await guardStorage(() =>
        this.client.send(
          new ScanCommand({
            TableName: this.tableName,
            FilterExpression: '#attribute = :value',
            ExpressionAttributeNames: { '#attribute': attribute },
            ExpressionAttributeValues: { ':value': value },
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      records.push(...(page.Items ?? []).map((item) => fromItem(item as ApiKeyItem)));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return records;
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
  };
}
