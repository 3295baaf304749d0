import { newestFirst } from './creation-order';
import { issueApiKey } from './api-keys';
import type { Clock } from './ports/clock';
import { Conflict, InvalidRequest, NotFound, RateLimited } from './errors';
import type { Account, AccountStore } from './ports/account-store';
import type { ApiKeyRecord, ApiKeyStore } from './ports/api-key-store';

/** A key as the console lists it: never the key, never its hash. */
export interface KeyView {
  id: string;
  label: string;
  prefix: string;
  status: ApiKeyRecord['status'];
  created_at: string;
  /** When the key last passed admission; null when never used. */
  last_used_at: string | null;
}

/** Key creates and revokes an account may make in one hour (issue: rate-limited per account). */
export const keyChangesPerHour = 20;
/**
 * Active keys an account may hold at once: a bound on what the account's record carries (one
 * last-use entry per active key) and far more than one customer's environments need.
 */
export const maxActiveKeys = 50;
const hourMs = 3_600_000;

export interface ConsoleKeyDeps {
  accounts: AccountStore;
  keys: ApiKeyStore;
  clock: Clock;
}

/** The account's keys, newest first, with their last use. */
export async function listKeys(account: Account, deps: Pick<ConsoleKeyDeps, 'keys'>): Promise<KeyView[]> {
  const records = await deps.keys.listByAccount(account.accountId);
  return records
    .filter((record) => record.accountId === account.accountId)
    .sort(newestFirst((record) => record.keyId))
    .map((record) => keyView(record, account));
}

/**
 * Creates a key for the account with the customer's label. The clear key is in this answer and
 * nowhere else: only its SHA-256 is stored (contract: Authentication 7; docs/console.md: keys).
 */
export async function createKey(
  account: Account,
  label: string,
  deps: ConsoleKeyDeps,
): Promise<{ key: KeyView; apiKey: string }> {
  const clean = label.trim();
  if (clean.length < 1 || clean.length > 64 || /[\u0000-\u001f\u007f]/.test(clean)) {
    throw new InvalidRequest('The label is invalid.', [{ field: 'label', reason: 'must be 1 to 64 printable characters' }]);
  }
  const active = (await deps.keys.listByAccount(account.accountId)).filter(
    (record) => record.accountId === account.accountId && record.status === 'active',
  );
  if (active.length >= maxActiveKeys) {
    throw new Conflict('key_limit_reached', `This account already holds ${maxActiveKeys} active keys; revoke one before creating another.`);
  }
  await admitKeyChange(account, deps);
  const issued = await issueApiKey(account.accountId, deps, { label: clean });
  return { key: keyView(issued.record, account), apiKey: issued.apiKey };
}

/**
 * Revokes one of the account's keys by its id; from then on the key gets 401. A key id of
 * another account, or of none, is the one 404 (contract: Authentication 6).
 */
export async function revokeKey(account: Account, keyId: string, deps: ConsoleKeyDeps): Promise<KeyView> {
  const record = (await deps.keys.listByAccount(account.accountId)).find(
    (candidate) => candidate.keyId === keyId && candidate.accountId === account.accountId,
  );
  if (!record) throw new NotFound();
  if (record.status === 'revoked') return keyView(record, account);
  await admitKeyChange(account, deps);
  if (!(await deps.keys.revoke(record.keyHash))) throw new NotFound();
  await deps.accounts.forgetKey(account.accountId, record.keyId);
  return keyView({ ...record, status: 'revoked' }, { ...account, keyLastUsed: {} });
}

async function admitKeyChange(account: Account, deps: Pick<ConsoleKeyDeps, 'accounts' | 'clock'>): Promise<void> {
  const now = deps.clock.now().getTime();
  const window = { id: Math.floor(now / hourMs), limit: keyChangesPerHour };
  if (!(await deps.accounts.admitKeyChange(account.accountId, window))) {
    const retryAfter = Math.max(1, Math.ceil(((window.id + 1) * hourMs - now) / 1000));
    throw new RateLimited('Too many key changes for this account; try again later.', retryAfter, 'key_changes');
  }
}

function keyView(record: ApiKeyRecord, account: Account): KeyView {
  return {
    id: record.keyId,
    label: record.label ?? '',
    prefix: record.prefix ?? `tm_${record.env}_`,
    status: record.status,
    created_at: record.createdAt,
    last_used_at: account.keyLastUsed?.[record.keyId] ?? null,
  };
}
