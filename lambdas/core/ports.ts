import type { Plan } from './plans';

/**
 * The ports through which the rules reach storage. Adapters implement them (DynamoDB in both
 * runtimes); the core never imports an adapter.
 */

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

export interface AccountStore {
  /** Stores a new account; fails if the id exists. */
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

/** Which account each sign-in identity opened (DESIGN: console). */
export interface IdentityStore {
  /** The account an identity holds, if it ever claimed one. */
  find(identity: string): Promise<string | undefined>;
  /**
   * Claims an account id for an identity, once and forever, in one conditional write. Returns
   * the account id that holds the identity: this one, or the one an earlier claim wrote.
   */
  claim(entry: { identity: string; accountId: string; createdAt: string }): Promise<string>;
}

/** One request's admission: the short-window counters it counts against, and whether it is charged. */
export interface Admission {
  keyId: string;
  /** Take one unit of allowance as well (a charged operation). */
  charge: boolean;
  /** The current short window (minutes since the epoch) and its limits. */
  window: { id: number; perKey: number; perAccount: number };
  /** The request's time (ISO), recorded as the key's last use. */
  at?: string;
}

/** What an admission found. */
export type ReserveOutcome =
  | { outcome: 'reserved'; account: Account }
  | { outcome: 'exhausted'; account: Account }
  | { outcome: 'rate_limited'; account: Account; scope: 'key' | 'account' }
  | { outcome: 'suspended' }
  | { outcome: 'absent' };

/** The allowance counter and the short-window counters: every change is one conditional single-item write. */
export interface Ledger {
  /**
   * Admits one request of an active account: counts it in the short window of its key and its
   * account, and for a charged operation takes one unit of allowance, all or nothing. The
   * allowance never goes below zero and a refused request changes nothing.
   */
  reserve(accountId: string, admission: Admission): Promise<ReserveOutcome>;
  /** Gives back one unit taken by `reserve`, for an outcome that is not charged. */
  refund(accountId: string): Promise<void>;
  /** Adds requests to the remaining and the additional allowance; undefined when the account is absent. */
  grant(accountId: string, requests: number): Promise<Allowance | undefined>;
}

export type ApiKeyStatus = 'active' | 'revoked';

/** A key as stored: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  keyHash: string;
  keyId: string;
  accountId: string;
  env: string;
  status: ApiKeyStatus;
  createdAt: string;
  /** The customer's name for the key (console keys); absent on keys the operator made. */
  label?: string;
  /** The key's first characters: enough to recognize it, far too few to use it. */
  prefix?: string;
}

export interface ApiKeyStore {
  put(record: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Every key of an account, oldest first (the account index orders by creation time). */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when no such key exists. */
  revoke(keyHash: string): Promise<boolean>;
  /** The key with this id (`key_…`), when there is one: a full read, for the operator only. */
  findById(keyId: string): Promise<ApiKeyRecord | undefined>;
}

/** A hostname on which addresses can be created and received. */
export interface Domain {
  domain: string;
  createEnabled: boolean;
  receiveEnabled: boolean;
}

export interface DomainStore {
  put(domain: Domain): Promise<void>;
  get(domain: string): Promise<Domain | undefined>;
  /** Every domain, in no particular order. */
  list(): Promise<Domain[]>;
}
