import { setTimeout as delay } from 'node:timers/promises';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type {
  AttachmentRecord,
  ExpiringMessage,
  MessagePage,
  MessageRecord,
  MessageStore,
  MessageSummary,
  StoredAttachments,
  StoredBody,
} from '../../core/ports/message-store';
import { PermanentStorageFault, Unavailable } from '../../core/errors';
import { itemBytes, maxItemBytes } from './item-size';
import { conditionally } from '../storage-errors';

export interface MessageItem {
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
  /** The hour of `expires_at` and the message's shard (`2026-11-22T12#7`): the by_expiry index's partition. */
  expiry_hour: string;
  size_bytes: number;
  /** Kept beside the list so that the by_email index can project the count alone. */
  attachment_count: number;
  text: StoredBody;
  html: StoredBody;
  /** The attachment list when it is kept on the item… */
  attachments?: AttachmentRecord[];
  /** …or where it is in the blob store when it is large. */
  attachments_blob?: { blobKey: string; sizeBytes: number };
  raw_key: string;
  ttl: number;
}

/** A by_email index entry: the keys and the listed fields (the index's projection). */
type SummaryItem = Pick<
  MessageItem,
  'message_id' | 'email_id' | 'received_sort' | 'from' | 'to' | 'subject' | 'received_at' | 'expires_at' | 'size_bytes' | 'attachment_count'
>;
/** A by_expiry index entry: the keys and where the message's blobs are. */
type ExpiringItem = Pick<MessageItem, 'message_id' | 'expiry_hour' | 'expires_at' | 'mail_id' | 'raw_key'>;

const hourMs = 60 * 60 * 1000;

/**
 * Shards of each hour of the by_expiry index. Every message write and every sweeper delete
 * writes the index partition of its expiry hour; one partition takes about 1,000 writes a second,
 * so a single hour key held the whole service near 500 messages a second (a write and a delete
 * each). Sixteen shards raise that sixteenfold; the sweeper reads them all.
 */
export const expiryShards = 16;

/** The by_expiry partition of a message: its expiry hour and a shard fixed by its id, so a delivery made again lands in the same one. */
export function expiryPartition(expiresAt: string, messageId: string): string {
  let hash = 0;
  for (let i = 0; i < messageId.length; i++) hash = (hash * 31 + messageId.charCodeAt(i)) >>> 0;
  return `${expiresAt.slice(0, 13)}#${hash % expiryShards}`;
}

/** DynamoDB's most requests in one BatchWriteItem. */
export const deleteBatchItems = 25;
/** Calls of one batch of deletes while DynamoDB leaves some unprocessed, before the rest is a fault. */
const unprocessedAttempts = 8;

export interface DynamoDbMessageStoreOptions {
  /** The first wait before deletes DynamoDB left unprocessed are sent again; it doubles each time (default 50 ms). */
  unprocessedRetryMs?: number;
}

/** Messages by id, by email (index `by_email`) and by expiry (index `by_expiry`). */
export class DynamoDbMessageStore implements MessageStore {
  private readonly unprocessedRetryMs: number;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: DynamoDbMessageStoreOptions = {},
  ) {
    this.unprocessedRetryMs = options.unprocessedRetryMs ?? 50;
  }

  /**
   * Writes a new message, once: a message already written under the same id (the same mail
   * delivered again) stays as it is. An item DynamoDB would refuse as over 400 KB (counted in
   * UTF-8 bytes, which dynalite does not do) is refused here first, as the permanent fault it is.
   */
  async put(message: MessageRecord): Promise<'created' | 'exists'> {
    const item = toItem(message);
    if (itemBytes(item as unknown as Record<string, unknown>) > maxItemBytes) throw new PermanentStorageFault('item_too_large');
    const written = await conditionally(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'attribute_not_exists(message_id)',
        }),
      ),
    );
    return written === undefined ? 'exists' : 'created';
  }

  async get(messageId: string, options: { consistent?: boolean } = {}): Promise<MessageRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { message_id: messageId }, ...(options.consistent ? { ConsistentRead: true } : {}) }),
    );
    return Item ? messageFromItem(Item as MessageItem) : undefined;
  }

  /**
   * One query returns at most 1 MB of index entries and says where it stopped with
   * `LastEvaluatedKey`; a short response is not the end. Queries go on from there until the page
   * holds one item more than asked (so there is a next page) or the index has nothing further.
   */
  async listByEmail(emailId: string, page: { receivedAfter: string; after?: string; limit: number }): Promise<MessagePage> {
    const found: SummaryItem[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined = page.after === undefined ? undefined : startKey(emailId, page.after);
    do {
      const response = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'by_email',
          KeyConditionExpression: 'email_id = :email AND received_sort > :after',
          ExpressionAttributeValues: { ':email': emailId, ':after': page.receivedAfter },
          ScanIndexForward: false,
          Limit: page.limit + 1 - found.length,
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      found.push(...((response.Items ?? []) as SummaryItem[]));
      exclusiveStartKey = response.LastEvaluatedKey;
    } while (found.length <= page.limit && exclusiveStartKey);
    const items = found.slice(0, page.limit);
    const last = items[items.length - 1];
    return {
      items: items.map(fromSummaryItem),
      ...(found.length > page.limit && last ? { next: last.received_sort } : {}),
    };
  }

  /**
   * The window's hours oldest first, the 16 shards of an hour read at once, each up to its share
   * of what is still wanted and one message more, which tells whether it holds more (a full page
   * alone does not: DynamoDB hands back a position whenever it stops at the limit). An hour with
   * a shard that held more ends the reading; what was not read then expires no earlier than the
   * first message such a shard held back, or the first one the limit left out.
   */
  async expiring(from: Date, until: Date, limit: number): Promise<{ messages: ExpiringMessage[]; moreFrom?: string }> {
    const found: ExpiringMessage[] = [];
    for (let hour = Math.floor(from.getTime() / hourMs); hour <= Math.floor(until.getTime() / hourMs); hour++) {
      if (found.length >= limit) return { messages: found, moreFrom: new Date(Math.max(hour * hourMs, from.getTime())).toISOString() };
      const hourKey = new Date(hour * hourMs).toISOString().slice(0, 13);
      const share = Math.ceil((limit - found.length) / expiryShards);
      const shards = await Promise.all(
        Array.from({ length: expiryShards }, (_, shard) => this.expiringIn(`${hourKey}#${shard}`, from, until, share)),
      );
      const read = shards.flatMap((shard) => shard.messages).sort(byExpiry);
      const taken = read.slice(0, limit - found.length);
      found.push(...taken);
      const heldBack = [...read.slice(taken.length, taken.length + 1), ...shards.flatMap((shard) => shard.next ?? [])];
      if (heldBack.length > 0) return { messages: found, moreFrom: heldBack.map((message) => message.expiresAt).sort()[0]! };
    }
    return { messages: found };
  }

  /** One shard's messages in the window, oldest first, at most `share`, and the next one when there is one. */
  private async expiringIn(partition: string, from: Date, until: Date, share: number): Promise<{ messages: ExpiringMessage[]; next?: ExpiringMessage }> {
    const messages: ExpiringMessage[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: 'by_expiry',
          KeyConditionExpression: 'expiry_hour = :partition AND expires_at BETWEEN :from AND :until',
          ExpressionAttributeValues: { ':partition': partition, ':from': from.toISOString(), ':until': until.toISOString() },
          ExclusiveStartKey: exclusiveStartKey,
          Limit: share + 1 - messages.length,
        }),
      );
      for (const item of (page.Items ?? []) as ExpiringItem[]) {
        messages.push({ messageId: item.message_id, mailId: item.mail_id, rawKey: item.raw_key, expiresAt: item.expires_at });
      }
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey && messages.length <= share);
    return messages.length > share ? { messages: messages.slice(0, share), next: messages[share]! } : { messages };
  }

  /**
   * BatchWriteItem, 25 deletes a call. Deletes DynamoDB leaves unprocessed (throttling) are sent
   * again after a wait that doubles, with jitter; still unprocessed after 8 calls, they are a fault.
   */
  async deleteMany(messageIds: readonly string[]): Promise<void> {
    for (let start = 0; start < messageIds.length; start += deleteBatchItems) {
      let requests: Record<string, unknown>[] = messageIds
        .slice(start, start + deleteBatchItems)
        .map((messageId) => ({ DeleteRequest: { Key: { message_id: messageId } } }));
      for (let attempt = 1; requests.length > 0; attempt++) {
        if (attempt > unprocessedAttempts) {
          throw new Unavailable(1, { cause: new Error(`${requests.length} message deletes left unprocessed after ${unprocessedAttempts} calls`) });
        }
        if (attempt > 1) await delay(this.unprocessedRetryMs * 2 ** (attempt - 2) * (0.5 + Math.random() / 2));
        const { UnprocessedItems } = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = (UnprocessedItems?.[this.tableName] ?? []) as Record<string, unknown>[];
      }
    }
  }
}

/** By expiry, then id: the order the sweeper takes expired messages in. */
function byExpiry(a: ExpiringMessage, b: ExpiringMessage): number {
  if (a.expiresAt !== b.expiresAt) return a.expiresAt < b.expiresAt ? -1 : 1;
  return a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0;
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
    expiry_hour: expiryPartition(message.expiresAt, message.messageId),
    size_bytes: message.sizeBytes,
    attachment_count: message.attachmentCount,
    text: message.text,
    html: message.html,
    ...('inline' in message.attachments ? { attachments: message.attachments.inline } : { attachments_blob: message.attachments }),
    raw_key: message.rawKey,
    // DynamoDB TTL is a backstop a day later; reads and the sweeper go by the clock.
    ttl: Math.floor(Date.parse(message.expiresAt) / 1000) + 24 * 60 * 60,
  };
}

function fromSummaryItem(item: SummaryItem): MessageSummary {
  return {
    messageId: item.message_id,
    emailId: item.email_id,
    from: item.from,
    to: item.to,
    subject: item.subject,
    receivedAt: item.received_at,
    expiresAt: item.expires_at,
    sizeBytes: item.size_bytes,
    // An item written before the count was kept has its list instead (a local data directory).
    attachmentCount: item.attachment_count ?? (item as Partial<MessageItem>).attachments?.length ?? 0,
  };
}

export function messageFromItem(item: MessageItem): MessageRecord {
  return {
    ...fromSummaryItem(item),
    accountId: item.account_id,
    mailId: item.mail_id,
    text: item.text,
    html: item.html,
    attachments: storedAttachments(item),
    rawKey: item.raw_key,
  };
}

function storedAttachments(item: MessageItem): StoredAttachments {
  return item.attachments_blob ? item.attachments_blob : { inline: item.attachments ?? [] };
}
