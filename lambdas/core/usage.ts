import { plans, type AllowanceMode, type Plan } from './plans';
import { NotFound } from './errors';
import type { Account, AccountStore, Allowance } from './ports/account-store';

/** The usage record of `GET /v1/usage` (DESIGN: gaps, usage record). */
export interface UsageRecord {
  plan: Plan;
  allowance_mode: AllowanceMode;
  used_requests: number;
  remaining_requests: number;
  additional_requests: number;
}

/** The figures of the `RateLimit-*` headers: they report the allowance, not the short window. */
export interface AllowanceFigures {
  limit: number;
  remaining: number;
  /** UTC Unix seconds; a marker only: neither plan renews there (contract: Limits, rule 1). */
  reset: number;
}

/** The usage record of an account: the authority on its allowance (contract: Limits, rule 2). */
export function usageRecord(account: Pick<Account, 'plan' | 'allowance'>): UsageRecord {
  const { base, additional, remaining } = account.allowance;
  return {
    plan: account.plan,
    allowance_mode: plans[account.plan].mode,
    used_requests: Math.max(0, base + additional - remaining),
    remaining_requests: Math.max(0, remaining),
    additional_requests: additional,
  };
}

/**
 * The `RateLimit-*` figures for an allowance at a moment. The reset marker is the start of the
 * next UTC calendar month; no allowance is added there, free or paid.
 */
export function allowanceFigures(allowance: Allowance, now: Date): AllowanceFigures {
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return {
    limit: Math.max(0, allowance.base + allowance.additional),
    remaining: Math.max(0, allowance.remaining),
    reset: Math.floor(nextMonth / 1000),
  };
}

/** The usage record of an existing account (contract: GET /v1/usage). */
export async function readUsage(accountId: string, deps: { accounts: AccountStore }): Promise<UsageRecord> {
  const account = await deps.accounts.get(accountId);
  if (!account) throw new NotFound();
  return usageRecord(account);
}
