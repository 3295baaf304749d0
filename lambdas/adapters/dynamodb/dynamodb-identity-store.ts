import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IdentityStore } from '../../core/ports/identity-store';
import { conditionally } from '../storage-errors';

interface IdentityItem {
  identity: string;
  account_id: string;
  created_at: string;
}

/** Sign-in identities and the account each opened: one item per identity, written once. */
export class DynamoDbIdentityStore implements IdentityStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async find(identity: string): Promise<string | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { identity }, ConsistentRead: true }));
    return (Item as IdentityItem | undefined)?.account_id;
  }

  async claim(entry: { identity: string; accountId: string; createdAt: string }): Promise<string> {
    const item: IdentityItem = { identity: entry.identity, account_id: entry.accountId, created_at: entry.createdAt };
    const written = await conditionally(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          // IDENTITY is a reserved word of DynamoDB's expression language.
          ConditionExpression: 'attribute_not_exists(#identity)',
          ExpressionAttributeNames: { '#identity': 'identity' },
        }),
      ),
    );
    if (written) return entry.accountId;
    const holder = await this.find(entry.identity);
    if (holder === undefined) throw new Error('identity claim lost to a writer that left no item');
    return holder;
  }
}
