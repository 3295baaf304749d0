import type { Account, Allowance } from './account-store';

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

/**
 * The allowance counter and the short-window counters of an account: every change is one
 * conditional single-item write, so no two requests spend the same unit. A refusal is an
 * outcome, not an error; a storage fault is thrown (503 `Unavailable` when worth retrying).
 */
export interface Ledger {
  /**
   * Admits one request of an active account: counts it in the short window of its key and its
   * account, and for a charged operation takes one unit of allowance, all or nothing. The
   * allowance never goes below zero and a refused request changes nothing.
   */
  reserve(accountId: string, admission: Admission): Promise<ReserveOutcome>;
  /** Gives back one unit taken by `reserve`, for an outcome that is not charged; nothing when the account is absent. */
  refund(accountId: string): Promise<void>;
  /** Adds requests to the remaining and the additional allowance; undefined when the account is absent. */
  grant(accountId: string, requests: number): Promise<Allowance | undefined>;
}
