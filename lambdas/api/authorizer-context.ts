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

/** The decision on a known account: an allowed request, or one refused for its allowance. */
export interface AccountDecision {
  decision: 'allow' | 'quota_exhausted';
  accountId: string;
  keyId: string;
  plan: Plan;
  /** A unit was reserved and must be settled. */
  charged: boolean;
  figures: AllowanceFigures;
}

/**
 * Flattens a decision into the authorizer's `context`. API Gateway REST hands context values to
 * the integration as strings, so every value is written as one.
 */
export function encodeDecision(decision: Decision | { decision: 'service_unavailable' }, now: Date): AuthorizerContext {
  if (decision.decision !== 'allow' && decision.decision !== 'quota_exhausted') {
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
  if (decision !== 'allow' && decision !== 'quota_exhausted') return { decision: 'invalid_api_key' };
  const plan = value('plan');
  const accountId = value('account_id');
  const figures = { limit: Number(value('limit')), remaining: Number(value('remaining')), reset: Number(value('reset')) };
  if (!isPlan(plan) || accountId === '' || !Object.values(figures).every(Number.isSafeInteger)) {
    return { decision: 'invalid_api_key' };
  }
  return { decision, accountId, keyId: value('key_id'), plan, charged: value('charged') === 'true', figures };
}

/** True when the decision names an account (and so carries its allowance figures). */
export function isAccountDecision(decision: RouteDecision): decision is AccountDecision {
  return decision.decision === 'allow' || decision.decision === 'quota_exhausted';
}
