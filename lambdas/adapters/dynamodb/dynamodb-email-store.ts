import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EmailRecord, EmailStore } from '../../core/ports/email-store';
import { conditionally } from '../storage-errors';

export interface EmailItem {
  email_id: string;
  account_id: string;
  address: string;
  local_part: string;
  domain: string;
  created_at: string;
  expires_at: string;
  /** DynamoDB TTL (Unix seconds): a week after the reservation ended; reads never wait for it. */
  ttl: number;
}

const ttlGraceSeconds = 7 * 24 * 60 * 60;
/** The index of an account's emails (table definitions: emails). */
const byAccount = 'by_account';

/** Reserved addresses by their email id. */
export class DynamoDbEmailStore implements EmailStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(email: EmailRecord): Promise<'created' | 'exists'> {
    const item: EmailItem = {
      email_id: email.emailId,
      account_id: email.accountId,
      address: email.address,
      local_part: email.localPart,
      domain: email.domain,
      created_at: email.createdAt,
      expires_at: email.expiresAt,
      ttl: Math.floor(Date.parse(email.expiresAt) / 1000) + ttlGraceSeconds,
    };
    const written = await conditionally(() =>
      this.client.send(
        new PutCommand({ TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(email_id)' }),
      ),
    );
    return written ? 'created' : 'exists';
  }

  async get(emailId: string): Promise<EmailRecord | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { email_id: emailId }, ConsistentRead: true }));
    return Item ? emailFromItem(Item as EmailItem) : undefined;
  }

  /**
   * Newest first; a position is the last item's `created_at` and id, as the index orders them.
   * One item more than the page is read, so that `next` is there only when a further item is.
   */
  async listByAccount(accountId: string, page: { limit: number; after?: string }) {
    const start = page.after === undefined ? undefined : startKey(accountId, page.after);
    const result = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: byAccount,
        KeyConditionExpression: 'account_id = :account',
        ExpressionAttributeValues: { ':account': accountId },
        ScanIndexForward: false,
        Limit: page.limit + 1,
        ExclusiveStartKey: start,
      }),
    );
    const read = (result.Items ?? []).map((item) => emailFromItem(item as EmailItem));
    const items = read.slice(0, page.limit);
    const last = items[items.length - 1];
    return { items, ...(read.length > page.limit && last ? { next: JSON.stringify([last.createdAt, last.emailId]) } : {}) };
  }
}

function startKey(accountId: string, position: string): Record<string, string> | undefined {
  const [createdAt, emailId] = JSON.parse(position) as [string, string];
  return { account_id: accountId, created_at: createdAt, email_id: emailId };
}

export function emailFromItem(item: EmailItem): EmailRecord {
  return {
    emailId: item.email_id,
    accountId: item.account_id,
    address: item.address,
    localPart: item.local_part,
    domain: item.domain,
    createdAt: item.created_at,
    expiresAt: item.expires_at,
  };
}
