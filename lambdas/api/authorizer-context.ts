import type { Decision } from '../core/authorize';
import { isPlan, type Plan } from '../core/plans';
import { allowanceFigures, type AllowanceFigures } from '../core/usage';

/** The decision as it travels from the authorizer to the route, through API Gateway's context. */
export type AuthorizerContext = Record<string, string>;

/** What a route learns from the authorizer: the verdict and, for a known account, its allowance. */
export type RouteDecision =
  | { decision: 'invalid_api_key' }
  | { decision: 'forbidden' }
  | { decision: 'service_unavailable' }
  | AccountDecision;

/** The decision on a known account: an allowed request, or one refused by a limit. */
export interface AccountDecision {
  decision: 'allow' | 'quota_exhausted' | 'rate_limited';
  accountId: string;
  keyId: string;
  plan: Plan;
  /** A unit was reserved and must be settled. */
  charged: boolean;
  figures: AllowanceFigures;
  /** For `rate_limited`: whole seconds until the short window ends. */
  retryAfterSeconds: number;
  /** For `rate_limited`: whose short window is full; unreadable reads as the key's. */
  scope: 'key' | 'account';
}

const accountDecisions = new Set<string>(['allow', 'quota_exhausted', 'rate_limited']);

/**
 * Flattens a decision into the authorizer's `context`. API Gateway REST hands context values to
 * the integration as strings, so every value is written as one.
 */
export function encodeDecision(decision: Decision | { decision: 'service_unavailable' }, now: Date): AuthorizerContext {
  if (decision.decision === 'invalid_api_key' || decision.decision === 'forbidden' || decision.decision === 'service_unavailable') {
    return { decision: decision.decision };
  }
  const figures = allowanceFigures(decision.allowance, now);
  return {
    decision: decision.decision,
    account_id: decision.accountId,
    key_id: decision.decision === 'allow' ? decision.keyId : '',
    plan: decision.plan,
    charged: String(decision.decision === 'allow' && decision.charged),
    limit: String(figures.limit),
    remaining: String(figures.remaining),
    reset: String(figures.reset),
    retry_after: String(decision.decision === 'rate_limited' ? decision.retryAfterSeconds : 0),
    scope: decision.decision === 'rate_limited' ? decision.scope : '',
  };
}

/**
 * Reads the decision back in the route. Anything missing or unreadable counts as an invalid key:
 * a route never serves a request the authorizer did not allow.
 */
export function decodeDecision(context: Record<string, unknown> | null | undefined): RouteDecision {
  const value = (name: string): string => {
    const raw = context?.[name];
    return raw === undefined || raw === null ? '' : String(raw);
  };
  const decision = value('decision');
  if (decision === 'forbidden' || decision === 'service_unavailable') return { decision };
  if (!accountDecisions.has(decision)) return { decision: 'invalid_api_key' };
  const plan = value('plan');
  const accountId = value('account_id');
  const figures = { limit: Number(value('limit')), remaining: Number(value('remaining')), reset: Number(value('reset')) };
  if (!isPlan(plan) || accountId === '' || !Object.values(figures).every(Number.isSafeInteger)) {
    return { decision: 'invalid_api_key' };
  }
  return {
    decision: decision as AccountDecision['decision'],
    accountId,
    keyId: value('key_id'),
    plan,
    charged: value('charged') === 'true',
    figures,
    retryAfterSeconds: Math.max(1, Number(value('retry_after')) || 1),
    scope: value('scope') === 'account' ? 'account' : 'key',
  };
}

/** True when the decision names an account (and so carries its allowance figures). */
export function isAccountDecision(decision: RouteDecision): decision is AccountDecision {
  return accountDecisions.has(decision.decision);
}
