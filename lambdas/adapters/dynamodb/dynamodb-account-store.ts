import { GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../../core/plans';
import type { Account, AccountStatus, AccountStore, Allowance } from '../../core/ports/account-store';
import type { Admission, Ledger, ReserveOutcome } from '../../core/ports/ledger';
import { conditionally } from '../storage-errors';
import { readAllPages } from './read-all-pages';

interface AccountItem {
  account_id: string;
  plan: Plan;
  status: AccountStatus;
  env: string;
  created_at: string;
  allowance_base: number;
  allowance_additional: number;
  allowance_remaining: number;
  /** The short window (minutes since the epoch) the counters below belong to. */
  win?: number;
  win_count?: number;
  /** Requests of each key in the window. */
  win_keys?: Record<string, number>;
  /** The key-change window (hours since the epoch) and its count (console key creates and revokes). */
  key_win?: number;
  key_win_count?: number;
  /**
   * `used_<key id>`: when that key last passed admission (top-level, so no map must exist first),
   * written by the admission's own update (no extra call). Removed when the key is revoked, so
   * the item holds at most one entry per active key (console: at most `maxActiveKeys`).
   */
  [lastUsed: `used_${string}`]: string;
}

const lastUsedPrefix = 'used_';

/** An admission that lost a race (a window change, a refund) is tried again this many times. */
const reserveAttempts = 5;
/**
 * Rounds of count-then-open for a key change. The second round counts in the window a
 * concurrent request opened; a third covers a window that turned over in between.
 */
const keyChangeAttempts = 3;

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
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: toItem(account),
        ConditionExpression: 'attribute_not_exists(account_id)',
      }),
    );
  }

  async createIfAbsent(account: Account): Promise<boolean> {
    const written = await conditionally(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(account),
          ConditionExpression: 'attribute_not_exists(account_id)',
        }),
      ),
    );
    return written !== undefined;
  }

  async get(accountId: string): Promise<Account | undefined> {
    const item = await this.getItem(accountId);
    return item ? fromItem(item) : undefined;
  }

  async list(): Promise<Account[]> {
    const items = await readAllPages(this.client, (start) => new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: start }));
    return items.map((item) => fromItem(item as unknown as AccountItem));
  }

  private async getItem(accountId: string): Promise<AccountItem | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { account_id: accountId }, ConsistentRead: true }));
    return Item as AccountItem | undefined;
  }

  async setStatus(accountId: string, status: AccountStatus): Promise<boolean> {
    const item = await this.updateExisting(accountId, 'SET #status = :status', { ':status': status }, { '#status': 'status' });
    return item !== undefined;
  }

  /**
   * Counts in the current window while it holds fewer than the limit; a window that is absent or
   * older is opened at one. A request that loses the race to open it (another request opened the
   * same window first) counts in that window instead, so only a full window refuses.
   */
  async admitKeyChange(accountId: string, window: { id: number; limit: number }): Promise<boolean> {
    for (let attempt = 0; attempt < keyChangeAttempts; attempt++) {
      if (await this.countKeyChange(accountId, window)) return true;
      if (await this.openKeyChangeWindow(accountId, window.id)) return true;
    }
    return false;
  }

  private async countKeyChange(accountId: string, window: { id: number; limit: number }): Promise<boolean> {
    const counted = await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { account_id: accountId },
          UpdateExpression: 'SET key_win_count = key_win_count + :one',
          ConditionExpression: 'attribute_exists(account_id) AND key_win = :w AND key_win_count < :limit',
          ExpressionAttributeValues: { ':one': 1, ':w': window.id, ':limit': window.limit },
        }),
      ),
    );
    return counted !== undefined;
  }

  private async openKeyChangeWindow(accountId: string, windowId: number): Promise<boolean> {
    const opened = await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { account_id: accountId },
          UpdateExpression: 'SET key_win = :w, key_win_count = :one',
          ConditionExpression: 'attribute_exists(account_id) AND (attribute_not_exists(key_win) OR key_win < :w)',
          ExpressionAttributeValues: { ':one': 1, ':w': windowId },
        }),
      ),
    );
    return opened !== undefined;
  }

  /**
   * One conditional update in the common case: the window is current, so the counters of the
   * account and the key grow by one (and the allowance shrinks by one) only while every limit
   * holds. A failed condition is explained by one consistent read; a window that has moved on is
   * restarted by a second conditional update.
   */
  async reserve(accountId: string, admission: Admission): Promise<ReserveOutcome> {
    for (let attempt = 1; attempt <= reserveAttempts; attempt++) {
      const admitted = await this.admit(accountId, admission, 'current');
      if (admitted) return { outcome: 'reserved', account: admitted };
      const item = await this.getItem(accountId);
      if (!item) return { outcome: 'absent' };
      const account = fromItem(item);
      if (account.status !== 'active') return { outcome: 'suspended' };
      if (admission.charge && account.allowance.remaining <= 0) return { outcome: 'exhausted', account };
      if ((item.win ?? -1) < admission.window.id) {
        const restarted = await this.admit(accountId, admission, 'new');
        if (restarted) return { outcome: 'reserved', account: restarted };
        continue;
      }
      if ((item.win_count ?? 0) >= admission.window.perAccount) return { outcome: 'rate_limited', account, scope: 'account' };
      if ((item.win_keys?.[admission.keyId] ?? 0) >= admission.window.perKey) {
        return { outcome: 'rate_limited', account, scope: 'key' };
      }
    }
    const account = await this.get(accountId);
    return account ? { outcome: 'rate_limited', account, scope: 'account' } : { outcome: 'absent' };
  }

  /** One admission attempt in the current window or a new one; the account, or undefined when a condition failed. */
  private async admit(accountId: string, admission: Admission, window: 'current' | 'new'): Promise<Account | undefined> {
    const charge = admission.charge;
    const values: Record<string, unknown> = { ':one': 1, ':active': 'active', ':w': admission.window.id };
    const conditions = ['attribute_exists(account_id)', '#status = :active'];
    const updates: string[] = [];
    const names: Record<string, string> = {};
    if (admission.at !== undefined) {
      updates.push('#used = :at');
      names['#used'] = `${lastUsedPrefix}${admission.keyId}`;
      values[':at'] = admission.at;
    }
    if (charge) {
      updates.push('allowance_remaining = allowance_remaining - :one');
      conditions.push('allowance_remaining > :zero');
      values[':zero'] = 0;
    }
    if (window === 'current') {
      updates.push('win_count = win_count + :one', '#keys.#key = if_not_exists(#keys.#key, :zero) + :one');
      conditions.push('win >= :w', 'win_count < :perAccount', '(attribute_not_exists(#keys.#key) OR #keys.#key < :perKey)');
      Object.assign(values, { ':zero': 0, ':perAccount': admission.window.perAccount, ':perKey': admission.window.perKey });
    } else {
      updates.push('win = :w', 'win_count = :one', '#keys = :fresh');
      conditions.push('(attribute_not_exists(win) OR win < :w)');
      values[':fresh'] = { [admission.keyId]: 1 };
    }
    const written = await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { account_id: accountId },
          UpdateExpression: `SET ${updates.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: {
            '#status': 'status',
            '#keys': 'win_keys',
            ...(window === 'current' ? { '#key': admission.keyId } : {}),
            ...names,
          },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    return written && fromItem(written.Attributes as AccountItem);
  }

  async forgetKey(accountId: string, keyId: string): Promise<void> {
    await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { account_id: accountId },
          UpdateExpression: 'REMOVE #used',
          ConditionExpression: 'attribute_exists(account_id)',
          ExpressionAttributeNames: { '#used': `${lastUsedPrefix}${keyId}` },
        }),
      ),
    );
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
    const written = await conditionally(() =>
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
    return written?.Attributes as AccountItem | undefined;
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
    win: 0,
    win_count: 0,
    win_keys: {},
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
    keyLastUsed: Object.fromEntries(
      Object.entries(item)
        .filter(([name, value]) => name.startsWith(lastUsedPrefix) && typeof value === 'string')
        .map(([name, value]) => [name.slice(lastUsedPrefix.length), value as string]),
    ),
  };
}
