import type { Clock } from './ports/clock';
import { Forbidden } from './errors';
import { newId } from './ids';
import { plans } from './plans';
import type { Account, AccountStore } from './ports/account-store';
import type { IdentityStore } from './ports/identity-store';

/** A signed-in person as the identity token names them: the issuer and its subject. */
export interface SignedInIdentity {
  issuer: string;
  subject: string;
  email?: string;
}

/** The storage key of an identity: issuer and subject together, unambiguously. */
export function identityKey(identity: Pick<SignedInIdentity, 'issuer' | 'subject'>): string {
  return JSON.stringify([identity.issuer, identity.subject]);
}

/**
 * The account of a signed-in identity, opened on the free plan (100 requests for life) at its
 * first sign-in, exactly once, also under concurrent first requests (issue: account on first
 * sign-in). One conditional write claims the identity for a new account id; whoever loses the
 * race reads the winner's id. The account item is written after the claim, so a crash between
 * the two leaves a claim whose account the next request opens: every step is safe to retry.
 */
export async function accountForIdentity(
  identity: SignedInIdentity,
  deps: { identities: IdentityStore; accounts: AccountStore; clock: Clock; env: string },
): Promise<Account> {
  const key = identityKey(identity);
  const now = deps.clock.now().toISOString();
  const accountId =
    (await deps.identities.find(key)) ??
    (await deps.identities.claim({ identity: key, accountId: newId('acc'), createdAt: now }));
  const account = (await deps.accounts.get(accountId)) ?? (await openFreeAccount(accountId, now, deps));
  if (account.status !== 'active') throw new Forbidden();
  return account;
}

/** Writes the claimed account; a concurrent writer of the same id may win, and its item is read. */
async function openFreeAccount(
  accountId: string,
  createdAt: string,
  deps: { accounts: AccountStore; env: string },
): Promise<Account> {
  const base = plans.free.allowance;
  const account: Account = {
    accountId,
    plan: 'free',
    status: 'active',
    env: deps.env,
    createdAt,
    allowance: { base, additional: 0, remaining: base },
  };
  if (await deps.accounts.createIfAbsent(account)) return account;
  const existing = await deps.accounts.get(accountId);
  if (!existing) throw new Error('account neither written nor found');
  return existing;
}
