import type { Plan } from '../plans';

export type AccountStatus = 'active' | 'suspended';

/** The allowance counters held on the account item. */
export interface Allowance {
  /** The plan's allowance at opening (100 free, 10,000 paid). */
  base: number;
  /** Requests granted by the operator on top of the base. */
  additional: number;
  /** Requests left; never below zero. */
  remaining: number;
}

export interface Account {
  accountId: string;
  plan: Plan;
  status: AccountStatus;
  /** The environment whose keys may authenticate as this account. */
  env: string;
  createdAt: string;
  allowance: Allowance;
  /** When each key last passed admission (ISO time), written in the admission's own write. */
  keyLastUsed?: Readonly<Record<string, string>>;
}

/**
 * The accounts: one item each, which also holds the allowance and the short-window counters that
 * the `Ledger` changes. Every change is one conditional write of that item, so concurrent calls
 * never lose a count. A storage fault is thrown (503 `Unavailable` when worth retrying), never
 * read as an absent account.
 */
export interface AccountStore {
  /** Stores a new account; throws the storage's condition failure if the id exists (ids are generated, so that is a bug). */
  create(account: Account): Promise<void>;
  /** Stores a new account; false (and nothing written) when the id exists. */
  createIfAbsent(account: Account): Promise<boolean>;
  get(accountId: string): Promise<Account | undefined>;
  /** Sets the status; false when the account does not exist. */
  setStatus(accountId: string, status: AccountStatus): Promise<boolean>;
  /** Every account, in no particular order: a full read, for the operator only. */
  list(): Promise<Account[]>;
  /**
   * Counts one key change (create or revoke) in the account's key-change window, only while the
   * window holds fewer than `limit`; false when it is full (or the account is absent).
   */
  admitKeyChange(accountId: string, window: { id: number; limit: number }): Promise<boolean>;
  /**
   * Forgets a revoked key's last use, so the account's record holds the last use of its active
   * keys only and stays bounded however many keys come and go. Nothing happens when the account
   * or the entry is absent.
   */
  forgetKey(accountId: string, keyId: string): Promise<void>;
}
