import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EmailRecord, EmailStore } from '../../core/mail-ports';
import { conditionally, guardStorage } from './storage-errors';

interface EmailItem {
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
    const { Item } = await guardStorage(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { email_id: emailId }, ConsistentRead: true })),
    );
    if (!Item) return undefined;
    const item = Item as EmailItem;
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
}
