import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AttachmentRecord, MessagePage, MessageRecord, MessageStore, StoredBody } from '../../core/mail-ports';
import { conditionally, guardStorage } from './storage-errors';

interface MessageItem {
  message_id: string;
  email_id: string;
  account_id: string;
  mail_id: string;
  from: string;
  to: string[];
  subject: string;
  received_at: string;
  /** `received_at#message_id`: the by_email index's order, newest first when read backwards. */
  received_sort: string;
  expires_at: string;
  /** The hour of `expires_at` (`2026-11-22T12`): the by_expiry index's bucket. */
  expiry_hour: string;
  size_bytes: number;
  text: StoredBody;
  html: StoredBody;
  attachments: AttachmentRecord[];
  raw_key: string;
  ttl: number;
}

const hourMs = 60 * 60 * 1000;

/** Messages by id, by email (index `by_email`) and by expiry (index `by_expiry`). */
export class DynamoDbMessageStore implements MessageStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(message: MessageRecord): Promise<'created' | 'exists'> {
    const written = await conditionally(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(message),
          ConditionExpression: 'attribute_not_exists(message_id)',
        }),
      ),
    );
    return written === undefined ? 'exists' : 'created';
  }

  async get(messageId: string): Promise<MessageRecord | undefined> {
    const { Item } = await guardStorage(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { message_id: messageId } })),
    );
    return Item ? fromItem(Item as MessageItem) : undefined;
  }

  async listByEmail(emailId: string, page: { receivedAfter: string; after?: string; limit: number }): Promise<MessagePage> {
    const start = page.after === undefined ? undefined : startKey(emailId, page.after);
    const { Items = [] } = await guardStorage(() =>
      this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'by_email',
          KeyConditionExpression: 'email_id = :email AND received_sort > :after',
          ExpressionAttributeValues: { ':email': emailId, ':after': page.receivedAfter },
          ScanIndexForward: false,
          Limit: page.limit + 1,
          ExclusiveStartKey: start,
        }),
      ),
    );
    const items = (Items as MessageItem[]).slice(0, page.limit);
    const last = items[items.length - 1];
    return {
      items: items.map(fromItem),
      ...(Items.length > page.limit && last ? { next: last.received_sort } : {}),
    };
  }

  async expiring(from: Date, until: Date): Promise<MessageRecord[]> {
    const found: MessageRecord[] = [];
    for (let hour = Math.floor(from.getTime() / hourMs); hour <= Math.floor(until.getTime() / hourMs); hour++) {
      let exclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await guardStorage(() =>
          this.client.send(
            new QueryCommand({
              TableName: this.tableName,
              IndexName: 'by_expiry',
              KeyConditionExpression: 'expiry_hour = :hour AND expires_at BETWEEN :from AND :until',
              ExpressionAttributeValues: {
                ':hour': new Date(hour * hourMs).toISOString().slice(0, 13),
                ':from': from.toISOString(),
                ':until': until.toISOString(),
              },
              ExclusiveStartKey: exclusiveStartKey,
            }),
          ),
        );
        found.push(...((page.Items ?? []) as MessageItem[]).map(fromItem));
        exclusiveStartKey = page.LastEvaluatedKey;
      } while (exclusiveStartKey);
    }
    return found;
  }

  async delete(messageId: string): Promise<void> {
    await guardStorage(() => this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { message_id: messageId } })));
  }
}

/** The index key a page continues after: the position is the last item's `received_sort`. */
function startKey(emailId: string, receivedSort: string): Record<string, string> {
  const messageId = receivedSort.slice(receivedSort.lastIndexOf('#') + 1);
  return { email_id: emailId, received_sort: receivedSort, message_id: messageId };
}

function toItem(message: MessageRecord): MessageItem {
  return {
    message_id: message.messageId,
    email_id: message.emailId,
    account_id: message.accountId,
    mail_id: message.mailId,
    from: message.from,
    to: message.to,
    subject: message.subject,
    received_at: message.receivedAt,
    received_sort: `${message.receivedAt}#${message.messageId}`,
    expires_at: message.expiresAt,
    expiry_hour: message.expiresAt.slice(0, 13),
    size_bytes: message.sizeBytes,
    text: message.text,
    html: message.html,
    attachments: message.attachments,
    raw_key: message.rawKey,
    // DynamoDB TTL is a backstop a day later; reads and the sweeper go by the clock.
    ttl: Math.floor(Date.parse(message.expiresAt) / 1000) + 24 * 60 * 60,
  };
}

function fromItem(item: MessageItem): MessageRecord {
  return {
    messageId: item.message_id,
    emailId: item.email_id,
    accountId: item.account_id,
    mailId: item.mail_id,
    from: item.from,
    to: item.to,
    subject: item.subject,
    receivedAt: item.received_at,
    expiresAt: item.expires_at,
    sizeBytes: item.size_bytes,
    text: item.text,
    html: item.html,
    attachments: item.attachments,
    rawKey: item.raw_key,
  };
}
