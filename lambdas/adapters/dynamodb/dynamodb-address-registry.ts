import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AddressRegistry } from '../../core/ports/address-registry';
import { conditionally } from '../storage-errors';

/** Every address ever issued, one item each, written once and never deleted. */
export class DynamoDbAddressRegistry implements AddressRegistry {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async lookup(address: string): Promise<string | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { address } }));
    return Item?.email_id as string | undefined;
  }

  async claim(entry: { address: string; emailId: string; accountId: string; claimedAt: string }) {
    const written = await conditionally(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { address: entry.address, email_id: entry.emailId, account_id: entry.accountId, claimed_at: entry.claimedAt },
          ConditionExpression: 'attribute_not_exists(address)',
        }),
      ),
    );
    if (written) return { outcome: 'claimed' as const };
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { address: entry.address }, ConsistentRead: true }));
    const heldBy = String(Item?.email_id ?? '');
    return heldBy === entry.emailId ? { outcome: 'claimed' as const } : { outcome: 'taken' as const, heldBy };
  }
}
