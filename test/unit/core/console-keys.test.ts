import { createKey, maxActiveKeys, revokeKey } from '../../../lambdas/core/console-keys';
import { Conflict } from '../../../lambdas/core/errors';
import type { ApiKeyRecord } from '../../../lambdas/core/ports/api-key-store';
import { TestClock } from '../../support/test-clock';
import { accountFixture, stubPorts } from '../../support/port-stubs';

const record = (n: number, status: ApiKeyRecord['status']): ApiKeyRecord => ({
  keyHash: `hash_${n}`,
  keyId: `key_${n}`,
  accountId: 'acc_fixture',
  env: 'local',
  status,
  createdAt: '2026-11-22T12:00:00.000Z',
});

describe('console keys', () => {
  it('refuses a key beyond the active-key cap with 409 key_limit_reached, counting only active keys', async () => {
    const { keys, accounts } = stubPorts({ account: accountFixture() });
    const deps = { keys, accounts, clock: new TestClock() };
    keys.listByAccount.mockResolvedValue(Array.from({ length: maxActiveKeys }, (_, n) => record(n, 'active')));
    const refused = createKey(accountFixture(), 'ci', deps);
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toMatchObject({ code: 'key_limit_reached' });
    expect(keys.put).not.toHaveBeenCalled();

    keys.listByAccount.mockResolvedValue([
      ...Array.from({ length: maxActiveKeys - 1 }, (_, n) => record(n, 'active')),
      ...Array.from({ length: 500 }, (_, n) => record(1000 + n, 'revoked')),
    ]);
    await expect(createKey(accountFixture(), 'ci', deps)).resolves.toMatchObject({ key: { status: 'active' } });
  });

  it('forgets a revoked key’s last use on the account’s record', async () => {
    const { keys, accounts } = stubPorts({ account: accountFixture(), key: record(1, 'active') });
    keys.revoke.mockResolvedValue(true);
    const view = await revokeKey(accountFixture({ keyLastUsed: { key_1: '2026-11-22T12:00:00.000Z' } }), 'key_1', {
      keys,
      accounts,
      clock: new TestClock(),
    });
    expect(view).toMatchObject({ status: 'revoked', last_used_at: null });
    expect(accounts.forgetKey).toHaveBeenCalledWith('acc_fixture', 'key_1');
  });
});
