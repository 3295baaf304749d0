import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../../core/plans';
import type { Account, AccountStatus, AccountStore, Allowance, Ledger, ReserveOutcome } from '../../core/ports';
import { guardStorage, isConditionFailure } from './storage-errors';

interface AccountItem {
  account_id: string;
  plan: Plan;
  status: AccountStatus;
  env: string;
  created_at: string;
  allowance_base: number;
  allowance_additional: number;
  allowance_remaining: number;
}

/** A reservation that lost a race with a refund is tried again this many times. */
const reserveAttempts = 3;

/**
 * Accounts and their allowance on one DynamoDB item each. Every allowance change is a single
 * conditional update, so the counter never goes below zero under any concurrency.
 */
export class DynamoDbAccountStore implements AccountStore, Ledger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(account: Account): Promise<void> {
    await guardStorage(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(account),
          ConditionExpression: 'attribute_not_exists(account_id)',
        }),
      ),
    );
  }

  async get(accountId: string): Promise<Account | undefined> {
    const { Item } = await guardStorage(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { account_id: accountId }, ConsistentRead: true })),
    );
    return Item ? fromItem(Item as AccountItem) : undefined;
  }

  async setStatus(accountId: string, status: AccountStatus): Promise<boolean> {
    const item = await this.updateExisting(accountId, 'SET #status = :status', { ':status': status }, { '#status': 'status' });
    return item !== undefined;
  }

  async reserve(accountId: string): Promise<ReserveOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { Attributes } = await guardStorage(() =>
          this.client.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: { account_id: accountId },
              UpdateExpression: 'SET allowance_remaining = allowance_remaining - :one',
              ConditionExpression: 'attribute_exists(account_id) AND #status = :active AND allowance_remaining > :zero',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':active': 'active' },
              ReturnValues: 'ALL_NEW',
            }),
          ),
        );
        return { outcome: 'reserved', account: fromItem(Attributes as AccountItem) };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const account = await this.get(accountId);
        if (!account) return { outcome: 'absent' };
        if (account.status !== 'active') return { outcome: 'suspended' };
        if (account.allowance.remaining <= 0 || attempt >= reserveAttempts) return { outcome: 'exhausted', account };
      }
    }
  }

  async refund(accountId: string): Promise<void> {
    await this.updateExisting(accountId, 'SET allowance_remaining = allowance_remaining + :one', { ':one': 1 });
  }

  async grant(accountId: string, requests: number): Promise<Allowance | undefined> {
    const item = await this.updateExisting(
      accountId,
      'SET allowance_remaining = allowance_remaining + :n, allowance_additional = allowance_additional + :n',
      { ':n': requests },
    );
    return item ? fromItem(item).allowance : undefined;
  }

  /** One conditional update of an existing account; undefined when it does not exist. */
  private async updateExisting(
    accountId: string,
    expression: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<AccountItem | undefined> {
    try {
      const { Attributes } = await guardStorage(() =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { account_id: accountId },
            UpdateExpression: expression,
            ConditionExpression: 'attribute_exists(account_id)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return Attributes as AccountItem;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}

function toItem(account: Account): AccountItem {
  return {
    account_id: account.accountId,
    plan: account.plan,
    status: account.status,
    env: account.env,
    created_at: account.createdAt,
    allowance_base: account.allowance.base,
    allowance_additional: account.allowance.additional,
    allowance_remaining: account.allowance.remaining,
  };
}

function fromItem(item: AccountItem): Account {
  return {
    accountId: item.account_id,
    plan: item.plan,
    status: item.status,
    env: item.env,
    createdAt: item.created_at,
    allowance: {
      base: item.allowance_base,
      additional: item.allowance_additional,
      remaining: item.allowance_remaining,
    },
  };
}
