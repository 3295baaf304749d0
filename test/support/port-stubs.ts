import type { Account, AccountStore } from '../../lambdas/core/ports/account-store';
import type { ApiKeyRecord, ApiKeyStore } from '../../lambdas/core/ports/api-key-store';
import type { Admission, Ledger, ReserveOutcome } from '../../lambdas/core/ports/ledger';

/** Port stubs for unit tests of core rules: jest functions, each answering one fixed way. */
export function stubPorts(options: { key?: ApiKeyRecord; account?: Account } = {}) {
  const keys: jest.Mocked<ApiKeyStore> = {
    put: jest.fn(),
    findByHash: jest.fn(async (_keyHash: string) => options.key),
    listByAccount: jest.fn(async (_accountId: string) => (options.key ? [options.key] : [])),
    revoke: jest.fn(),
    findById: jest.fn(async (_keyId: string) => options.key),
  };
  const accounts: jest.Mocked<AccountStore> = {
    create: jest.fn(),
    createIfAbsent: jest.fn(async (_account: Account) => true),
    get: jest.fn(async (_accountId: string) => options.account),
    setStatus: jest.fn(),
    list: jest.fn(async () => (options.account ? [options.account] : [])),
    admitKeyChange: jest.fn(async (_accountId: string, _window: { id: number; limit: number }) => true),
    forgetKey: jest.fn(),
  };
  const ledger: jest.Mocked<Ledger> = {
    reserve: jest.fn(
      async (_accountId: string, _admission: Admission): Promise<ReserveOutcome> =>
        options.account ? { outcome: 'reserved', account: options.account } : { outcome: 'absent' },
    ),
    refund: jest.fn(),
    grant: jest.fn(),
  };
  return { keys, accounts, ledger };
}

export function accountFixture(overrides: Partial<Account> = {}): Account {
  return {
    accountId: 'acc_fixture',
    plan: 'free',
    status: 'active',
    env: 'local',
    createdAt: '2026-11-22T12:00:00.000Z',
    allowance: { base: 100, additional: 0, remaining: 100 },
    ...overrides,
  };
}
