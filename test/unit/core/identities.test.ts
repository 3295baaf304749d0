import { accountForIdentity, identityKey } from '../../../lambdas/core/identities';
import { Forbidden } from '../../../lambdas/core/errors';
import type { Account } from '../../../lambdas/core/ports/account-store';
import type { IdentityStore } from '../../../lambdas/core/ports/identity-store';
import { accountFixture, stubPorts } from '../../support/port-stubs';
import { TestClock } from '../../support/test-clock';

const identity = { issuer: 'https://issuer.example.test', subject: 'sub-1' };

function identities(held?: string): jest.Mocked<IdentityStore> {
  return {
    find: jest.fn(async (_identity: string) => held),
    claim: jest.fn(async (entry: { identity: string; accountId: string; createdAt: string }) => entry.accountId),
  };
}

describe('accountForIdentity', () => {
  it('claims a new identity, then opens its account on the free plan with 100 requests for life', async () => {
    const { accounts } = stubPorts();
    const store = identities();
    const account = await accountForIdentity(identity, { identities: store, accounts, clock: new TestClock(), env: 'prod' });
    expect(store.claim).toHaveBeenCalledWith(expect.objectContaining({ identity: identityKey(identity) }));
    expect(account).toMatchObject({ plan: 'free', status: 'active', env: 'prod', allowance: { base: 100, additional: 0, remaining: 100 } });
    expect(accounts.createIfAbsent).toHaveBeenCalledWith(account);
  });

  it('opens the account of a claim whose account was never written (a crash between the two steps)', async () => {
    const { accounts } = stubPorts();
    const account = await accountForIdentity(identity, { identities: identities('acc_claimed'), accounts, clock: new TestClock(), env: 'local' });
    expect(account.accountId).toBe('acc_claimed');
    expect(accounts.createIfAbsent).toHaveBeenCalledTimes(1);
  });

  it('reads the account a concurrent first request wrote, instead of writing another', async () => {
    const existing: Account = accountFixture({ accountId: 'acc_claimed' });
    const { accounts } = stubPorts();
    accounts.get.mockResolvedValueOnce(undefined).mockResolvedValueOnce(existing);
    accounts.createIfAbsent.mockResolvedValueOnce(false);
    const account = await accountForIdentity(identity, { identities: identities('acc_claimed'), accounts, clock: new TestClock(), env: 'local' });
    expect(account).toBe(existing);
  });

  it('refuses a suspended account with 403', async () => {
    const { accounts } = stubPorts({ account: accountFixture({ status: 'suspended' }) });
    await expect(accountForIdentity(identity, { identities: identities('acc_fixture'), accounts, clock: new TestClock(), env: 'local' })).rejects.toBeInstanceOf(Forbidden);
  });

  it('keeps issuer and subject apart: the same subject at another issuer is another identity', () => {
    expect(identityKey(identity)).not.toBe(identityKey({ issuer: 'https://other.example.test', subject: 'sub-1' }));
    expect(identityKey({ issuer: 'a|b', subject: 'c' })).not.toBe(identityKey({ issuer: 'a', subject: 'b|c' }));
  });
});
