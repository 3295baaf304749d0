import type { Clock } from './ports/clock';
import { oldestFirst } from './creation-order';
import { InvalidRequest, NotFound } from './errors';
import { environmentPattern, issueApiKey, type IssuedApiKey } from './api-keys';
import { newId } from './ids';
import { plans, type Plan } from './plans';
import type { Account, AccountStore, Allowance } from './ports/account-store';
import type { ApiKeyStore } from './ports/api-key-store';
import type { Ledger } from './ports/ledger';

export interface OpenedAccount extends IssuedApiKey {
  accountId: string;
}

/**
 * Opens an account on a plan with its first key. Free accounts get 100 requests for life; paid
 * accounts a durable balance of 10,000 (contract: Limits).
 */
export async function openAccount(
  options: { plan: Plan; env: string },
  deps: { accounts: AccountStore; keys: ApiKeyStore; clock: Clock },
): Promise<OpenedAccount> {
  if (!environmentPattern.test(options.env)) {
    throw new InvalidRequest('Invalid environment name.', [{ field: 'env', reason: 'must match [a-z0-9-]{1,16}' }]);
  }
  const accountId = newId('acc');
  const base = plans[options.plan].allowance;
  await deps.accounts.create({
    accountId,
    plan: options.plan,
    status: 'active',
    env: options.env,
    createdAt: deps.clock.now().toISOString(),
    allowance: { base, additional: 0, remaining: base },
  });
  const key = await issueApiKey(accountId, deps);
  return { accountId, keyId: key.keyId, apiKey: key.apiKey };
}

/** Suspends an account: its requests then get 403, uncharged. */
export async function suspendAccount(accountId: string, deps: { accounts: AccountStore }): Promise<void> {
  if (!(await deps.accounts.setStatus(accountId, 'suspended'))) throw new NotFound();
}

/** Adds requests to an account's allowance (the usage record's additional allowance). */
export async function grantAllowance(
  accountId: string,
  requests: number,
  deps: { ledger: Ledger },
): Promise<Allowance> {
  if (!Number.isSafeInteger(requests) || requests < 1) {
    throw new InvalidRequest('The grant must be a positive whole number of requests.', [
      { field: 'requests', reason: 'must be a positive integer' },
    ]);
  }
  const allowance = await deps.ledger.grant(accountId, requests);
  if (!allowance) throw new NotFound();
  return allowance;
}

/** Every account, oldest first (operator CLI `account list`): a full read, for the operator only. */
export async function listAccounts(deps: { accounts: AccountStore }): Promise<Account[]> {
  return (await deps.accounts.list()).sort(oldestFirst((account) => account.accountId));
}
