import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotencyRecord, IdempotencyStore, Refusal } from '../../core/ports/idempotency-store';
import { conditionally, isConditionFailure } from '../storage-errors';

interface IdempotencyItem {
  record_key: string;
  request_hash: string;
  status: IdempotencyRecord['status'];
  email_id: string;
  address: string;
  local_part: string;
  domain: string;
  lease_until: number;
  lease_token: string;
  expires_at: number;
  /** Present on a refused record: the answer every duplicate gets. */
  refusal?: Refusal;
  /** DynamoDB TTL (Unix seconds); reads compare `expires_at` with the clock instead. */
  ttl: number;
}

/** `status` is a reserved word in DynamoDB expressions. */
const statusName = { '#status': 'status' };

/** Idempotency records of creates, in the manner of Powertools' idempotency utility. */
export class DynamoDbIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async begin(record: IdempotencyRecord, now: number) {
    for (;;) {
      const attempt = await this.putUnlessHeld(record, now);
      if (attempt.written) return { outcome: 'started' as const };
      const existing = attempt.holder ?? (await this.get(record.recordKey));
      const replaceable = existing?.status === 'refused' && existing.requestHash !== record.requestHash;
      if (existing && existing.expiresAt > now && !replaceable) return { outcome: 'exists' as const, record: existing };
    }
  }

  /**
   * Writes the record unless another one holds its key. DynamoDB returns the holder in the refused
   * write itself (`ALL_OLD` on condition failure), with no read and no window for it to change;
   * dynalite returns nothing there, and `begin` then reads the holder (docs/decisions.md).
   */
  private async putUnlessHeld(record: IdempotencyRecord, now: number): Promise<{ written: boolean; holder?: IdempotencyRecord }> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(record),
          // A refused record of another request created nothing: it does not hold the key.
          ConditionExpression:
            'attribute_not_exists(record_key) OR expires_at <= :now OR (#status = :refused AND request_hash <> :hash)',
          ExpressionAttributeNames: statusName,
          ExpressionAttributeValues: { ':now': now, ':refused': 'refused', ':hash': record.requestHash },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { written: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The failed write's item comes back in DynamoDB's own attribute form: the document client
      // unmarshalls answers, not errors.
      const item = (error as { Item?: Record<string, AttributeValue> }).Item;
      return { written: false, ...(item ? { holder: fromItem(unmarshall(item) as IdempotencyItem) } : {}) };
    }
  }

  async get(recordKey: string): Promise<IdempotencyRecord | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { record_key: recordKey }, ConsistentRead: true }));
    return Item ? fromItem(Item as IdempotencyItem) : undefined;
  }

  async takeOver(recordKey: string, lease: { until: number; token: string }, now: number): Promise<boolean> {
    return this.conditionalUpdate(
      recordKey,
      'SET lease_until = :until, lease_token = :token',
      '#status = :in_progress AND lease_until <= :now',
      { ':until': lease.until, ':token': lease.token, ':in_progress': 'in_progress', ':now': now },
      statusName,
    );
  }

  async replan(recordKey: string, leaseToken: string, plan: { address: string; localPart: string }): Promise<void> {
    const held = await this.conditionalUpdate(recordKey, 'SET address = :address, local_part = :local', 'lease_token = :token', {
      ':address': plan.address,
      ':local': plan.localPart,
      ':token': leaseToken,
    });
    if (!held) throw new Error('idempotency lease lost while replanning');
  }

  async complete(recordKey: string): Promise<void> {
    // Whoever completes, the planned email is the answer: a lost lease does not undo the create.
    await this.conditionalUpdate(
      recordKey,
      'SET #status = :completed',
      'attribute_exists(record_key)',
      { ':completed': 'completed' },
      statusName,
    );
  }

  async release(recordKey: string, leaseToken: string): Promise<void> {
    await this.conditionalUpdate(
      recordKey,
      'SET lease_until = :zero',
      'lease_token = :token AND #status = :in_progress',
      { ':zero': 0, ':token': leaseToken, ':in_progress': 'in_progress' },
      statusName,
    );
  }

  async refuse(recordKey: string, leaseToken: string, refusal: Refusal): Promise<void> {
    await this.conditionalUpdate(
      recordKey,
      'SET #status = :refused, refusal = :refusal',
      'lease_token = :token AND #status = :in_progress',
      { ':refused': 'refused', ':refusal': refusal, ':token': leaseToken, ':in_progress': 'in_progress' },
      statusName,
    );
  }

  /** One conditional update; false when its condition did not hold. */
  private async conditionalUpdate(
    recordKey: string,
    update: string,
    condition: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<boolean> {
    const written = await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { record_key: recordKey },
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
    return written !== undefined;
  }
}

function toItem(record: IdempotencyRecord): IdempotencyItem {
  return {
    record_key: record.recordKey,
    request_hash: record.requestHash,
    status: record.status,
    email_id: record.emailId,
    address: record.address,
    local_part: record.localPart,
    domain: record.domain,
    lease_until: record.leaseUntil,
    lease_token: record.leaseToken,
    expires_at: record.expiresAt,
    ...(record.refusal ? { refusal: record.refusal } : {}),
    ttl: Math.ceil(record.expiresAt / 1000),
  };
}

function fromItem(item: IdempotencyItem): IdempotencyRecord {
  return {
    recordKey: item.record_key,
    requestHash: item.request_hash,
    status: item.status,
    emailId: item.email_id,
    address: item.address,
    localPart: item.local_part,
    domain: item.domain,
    leaseUntil: item.lease_until,
    leaseToken: item.lease_token,
    expiresAt: item.expires_at,
    ...(item.refusal ? { refusal: item.refusal } : {}),
  };
}
