import { apiKeyEnvironment, containsApiKey, hashApiKey } from './api-keys';
import type { Plan } from './plans';
import type { AccountStore, Allowance, ApiKeyStore, Ledger } from './ports';

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
  | { decision: 'quota_exhausted'; accountId: string; plan: Plan; allowance: Allowance };

export interface AuthorizeDeps {
  /** The environment this deployment serves; keys of any other are invalid. */
  env: string;
  keys: ApiKeyStore;
  accounts: AccountStore;
  ledger: Ledger;
}

/** Query parameter names under which clients commonly (and wrongly) send keys. */
const keyParameterNames = /^(api[_-]?key|key|token|access[_-]?token|auth|authorization|bearer)$/i;
const bearerPattern = /^Bearer ([\x21-\x7E]+)$/i;

const invalid: Decision = { decision: 'invalid_api_key' };

/**
 * Authenticates a request and, for a charged operation, reserves one unit of allowance
 * (contract: Authentication 1–5, Limits; DESIGN: request flow 1–3). Missing, malformed, revoked
 * and other-environment keys, and any key in the query string, are `invalid_api_key`; a
 * suspended account is `forbidden`; neither is charged.
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

  if (!options.charge) {
    const account = await deps.accounts.get(record.accountId);
    if (!account || account.env !== deps.env) return invalid;
    if (account.status !== 'active') return { decision: 'forbidden' };
    return allow(record.keyId, account.accountId, account.plan, account.allowance, false);
  }

  const reservation = await deps.ledger.reserve(record.accountId);
  switch (reservation.outcome) {
    case 'absent':
      return invalid;
    case 'suspended':
      return { decision: 'forbidden' };
    case 'exhausted': {
      const { accountId, plan, allowance } = reservation.account;
      return { decision: 'quota_exhausted', accountId, plan, allowance };
    }
    case 'reserved': {
      const { accountId, plan, allowance } = reservation.account;
      return allow(record.keyId, accountId, plan, allowance, true);
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
