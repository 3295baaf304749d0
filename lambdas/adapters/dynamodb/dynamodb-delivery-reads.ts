import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DeliveryReadResult, DeliveryReads } from '../../core/ports/delivery-reads';
import { domainFromItem, type DomainItem } from './dynamodb-domain-store';
import { emailFromItem, type EmailItem } from './dynamodb-email-store';
import { messageFromItem, type MessageItem } from './dynamodb-message-store';

/** DynamoDB's limit of keys in one BatchGetItem. */
const maxKeysPerBatch = 100;

type Key = { table: 'domains' | 'addresses' | 'emails' | 'messages'; key: Record<string, string> };

/**
 * The delivery path's reads in one BatchGetItem across four tables: domains, the address registry,
 * emails and messages (these two consistently). Keys a batch leaves unprocessed (throttling) are asked again;
 * more than 100 keys take one request per 100.
 */
export class DynamoDbDeliveryReads implements DeliveryReads {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { domains: string; addresses: string; emails: string; messages: string },
  ) {}

  async read(keys: Parameters<DeliveryReads['read']>[0]): Promise<DeliveryReadResult> {
    const wanted: Key[] = [
      ...[...new Set(keys.domains ?? [])].map((domain): Key => ({ table: 'domains', key: { domain } })),
      ...[...new Set(keys.addresses ?? [])].map((address): Key => ({ table: 'addresses', key: { address } })),
      ...[...new Set(keys.emailIds ?? [])].map((id): Key => ({ table: 'emails', key: { email_id: id } })),
      ...[...new Set(keys.messageIds ?? [])].map((id): Key => ({ table: 'messages', key: { message_id: id } })),
    ];
    const result: DeliveryReadResult = { domains: new Map(), emailIds: new Map(), emails: new Map(), messages: new Map() };
    for (let start = 0; start < wanted.length; start += maxKeysPerBatch) {
      await this.readBatch(wanted.slice(start, start + maxKeysPerBatch), result);
    }
    return result;
  }

  private async readBatch(batch: Key[], result: DeliveryReadResult): Promise<void> {
    const byTable = new Map<string, Record<string, string>[]>();
    for (const { table, key } of batch) {
      const name = this.tables[table];
      byTable.set(name, [...(byTable.get(name) ?? []), key]);
    }
    let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead?: boolean }> | undefined = Object.fromEntries(
      [...byTable].map(([name, tableKeys]) => [
        name,
        { Keys: tableKeys, ...(name === this.tables.messages || name === this.tables.emails ? { ConsistentRead: true } : {}) },
      ]),
    );
    while (request && Object.keys(request).length > 0) {
      const page = await this.client.send(new BatchGetCommand({ RequestItems: request }));
      for (const item of page.Responses?.[this.tables.domains] ?? []) {
        const domain = domainFromItem(item as DomainItem);
        result.domains.set(domain.domain, domain);
      }
      for (const item of page.Responses?.[this.tables.addresses] ?? []) result.emailIds.set(String(item.address), String(item.email_id));
      for (const item of page.Responses?.[this.tables.emails] ?? []) {
        const email = emailFromItem(item as EmailItem);
        result.emails.set(email.emailId, email);
      }
      for (const item of page.Responses?.[this.tables.messages] ?? []) {
        const message = messageFromItem(item as MessageItem);
        result.messages.set(message.messageId, message);
      }
      request = page.UnprocessedKeys as typeof request;
    }
  }
}
