import { apiKeyEnvironment, containsApiKey, hashApiKey } from './api-keys';
import type { Clock } from './ports/clock';
import type { Plan } from './plans';
import type { Allowance } from './ports/account-store';
import type { ApiKeyStore } from './ports/api-key-store';
import type { Ledger } from './ports/ledger';
import { secondsUntilNextWindow, shortWindowAt, type ShortWindowLimits } from './short-window';

/** What a request offers as proof of identity, as the gateway hands it over. */
export interface Credentials {
  /** Every value of the `Authorization` header; more than one is malformed. */
  authorization: readonly string[];
  /** Every query parameter with all its values. */
  query: Readonly<Record<string, readonly string[] | undefined>>;
}

/** The authorizer's verdict; every route's first middleware answers all but `allow`. */
export type Decision =
  | { decision: 'allow'; accountId: string; keyId: string; plan: Plan; charged: boolean; allowance: Allowance }
  | { decision: 'invalid_api_key' }
  | { decision: 'forbidden' }
  | { decision: 'quota_exhausted'; accountId: string; plan: Plan; allowance: Allowance }
  | {
      decision: 'rate_limited';
      accountId: string;
      plan: Plan;
      allowance: Allowance;
      retryAfterSeconds: number;
      /** Whose short window is full: the key's, or the account's across its keys. */
      scope: 'key' | 'account';
    };

export interface AuthorizeDeps {
  /** The environment this deployment serves; keys of any other are invalid. */
  env: string;
  keys: ApiKeyStore;
  ledger: Ledger;
  clock: Clock;
  /** The contract's limits unless the local runtime was told otherwise for a load test. */
  shortWindow?: ShortWindowLimits;
}

/** Query parameter names under which clients commonly (and wrongly) send keys. */
const keyParameterNames = /^(api[_-]?key|key|token|access[_-]?token|auth|authorization|bearer)$/i;
const bearerPattern = /^Bearer ([\x21-\x7E]+)$/i;

const invalid: Decision = { decision: 'invalid_api_key' };

/**
 * Authenticates a request, counts it in the short window and, for a charged operation, reserves
 * one unit of allowance, in one conditional write (contract: Authentication 1–5, Limits; DESIGN:
 * request flow 1–3, 6). Missing, malformed, revoked and other-environment keys, and any key in
 * the query string, are `invalid_api_key`; a suspended account is `forbidden`; a full window or
 * a used-up allowance is refused. None of these is charged.
 */
export async function authorize(
  credentials: Credentials,
  options: { charge: boolean },
  deps: AuthorizeDeps,
): Promise<Decision> {
  if (hasKeyInQuery(credentials.query)) return invalid;
  const apiKey = bearerToken(credentials.authorization);
  if (apiKey === undefined || apiKeyEnvironment(apiKey) !== deps.env) return invalid;

  const record = await deps.keys.findByHash(hashApiKey(apiKey));
  if (!record || record.status !== 'active' || record.env !== deps.env) return invalid;

  const now = deps.clock.now();
  const reservation = await deps.ledger.reserve(record.accountId, {
    keyId: record.keyId,
    charge: options.charge,
    window: shortWindowAt(now, deps.shortWindow),
    at: now.toISOString(),
  });
  switch (reservation.outcome) {
    case 'absent':
      return invalid;
    case 'suspended':
      return { decision: 'forbidden' };
    case 'exhausted': {
      const { accountId, plan, allowance } = reservation.account;
      return { decision: 'quota_exhausted', accountId, plan, allowance };
    }
    case 'rate_limited': {
      const { accountId, plan, allowance } = reservation.account;
      const retryAfterSeconds = secondsUntilNextWindow(now);
      return { decision: 'rate_limited', accountId, plan, allowance, retryAfterSeconds, scope: reservation.scope };
    }
    case 'reserved': {
      const { accountId, plan, allowance, env } = reservation.account;
      if (env !== deps.env) return invalid;
      return allow(record.keyId, accountId, plan, allowance, options.charge);
    }
  }
}

function allow(keyId: string, accountId: string, plan: Plan, allowance: Allowance, charged: boolean): Decision {
  return { decision: 'allow', accountId, keyId, plan, charged, allowance };
}

function bearerToken(values: readonly string[]): string | undefined {
  if (values.length !== 1) return undefined;
  return bearerPattern.exec(values[0]!.trim())?.[1];
}

function hasKeyInQuery(query: Credentials['query']): boolean {
  return Object.entries(query).some(
    ([name, values]) => keyParameterNames.test(name) || containsApiKey(name) || (values ?? []).some(containsApiKey),
  );
}
