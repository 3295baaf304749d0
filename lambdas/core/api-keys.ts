import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from './ports/clock';
import { InvalidRequest, NotFound } from './errors';
import { newId } from './ids';
import { oldestFirst } from './creation-order';
import type { AccountStore } from './ports/account-store';
import type { ApiKeyRecord, ApiKeyStatus, ApiKeyStore } from './ports/api-key-store';

/** Environment names a key can be bound to: `local`, `staging`, `prod`… */
export const environmentPattern = /^[a-z0-9-]{1,16}$/;

/** `tm_<env>_<43 base64url characters of 32 random bytes>`: 256 random bits, environment visible. */
const apiKeyPattern = /^tm_([a-z0-9-]{1,16})_([A-Za-z0-9_-]{43})$/;
/** Anything shaped like one of our keys, anywhere in a string. */
const apiKeyLikePattern = /tm_[a-z0-9-]{1,16}_[A-Za-z0-9_-]{43}/;

/** A new random API key bound to an environment. */
export function generateApiKey(env: string): string {
  if (!environmentPattern.test(env)) throw new InvalidRequest(`Invalid environment name: ${env}`);
  return `tm_${env}_${randomBytes(32).toString('base64url')}`;
}

/** The environment a well-formed key is bound to, or undefined for a malformed key. */
export function apiKeyEnvironment(key: string): string | undefined {
  return apiKeyPattern.exec(key)?.[1];
}

/** True when the value carries something shaped like an API key. */
export function containsApiKey(value: string): boolean {
  return apiKeyLikePattern.test(value);
}

/** The only form in which a key is stored or looked up (DESIGN: request flow 1). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface IssuedApiKey {
  keyId: string;
  apiKey: string;
}

/**
 * Issues a new key for an existing account, bound to the account's environment. The clear key
 * is returned once and never stored.
 */
export async function issueApiKey(
  accountId: string,
  deps: { accounts: AccountStore; keys: ApiKeyStore; clock: Clock },
  options: { label?: string } = {},
): Promise<IssuedApiKey & { record: ApiKeyRecord }> {
  const account = await deps.accounts.get(accountId);
  if (!account) throw new NotFound();
  const apiKey = generateApiKey(account.env);
  const record: ApiKeyRecord = {
    keyHash: hashApiKey(apiKey),
    keyId: newId('key'),
    accountId,
    env: account.env,
    status: 'active',
    createdAt: deps.clock.now().toISOString(),
    prefix: apiKeyPrefix(apiKey),
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
  await deps.keys.put(record);
  return { keyId: record.keyId, apiKey, record };
}

/** Characters of the secret part shown as a key's prefix: 36 of its 256 bits, useless alone. */
const prefixSecretCharacters = 6;

/** The non-secret prefix of a key: `tm_<env>_` and its first six characters. */
export function apiKeyPrefix(apiKey: string): string {
  const match = apiKeyPattern.exec(apiKey);
  if (!match) throw new InvalidRequest('Not an API key.');
  return `tm_${match[1]}_${match[2]!.slice(0, prefixSecretCharacters)}`;
}

/** Revokes a key: from then on it gets 401 `invalid_api_key`; its last use leaves the account's record. */
export async function revokeApiKey(apiKey: string, deps: { keys: ApiKeyStore; accounts: AccountStore }): Promise<void> {
  const record = await deps.keys.findByHash(hashApiKey(apiKey));
  if (!record || !(await deps.keys.revoke(record.keyHash))) throw new NotFound();
  await deps.accounts.forgetKey(record.accountId, record.keyId);
}

/** An API key as the operator sees it: never the key, never its hash. */
export interface ApiKeySummary {
  key_id: string;
  account_id: string;
  env: string;
  status: ApiKeyStatus;
  created_at: string;
}

/** Every key of an account, oldest first (operator CLI `key list`); 404 when the account is absent. */
export async function listApiKeys(accountId: string, deps: { accounts: AccountStore; keys: ApiKeyStore }): Promise<ApiKeySummary[]> {
  if (!(await deps.accounts.get(accountId))) throw new NotFound();
  const records = await deps.keys.listByAccount(accountId);
  return records
    .sort(oldestFirst((record) => record.keyId))
    .map((record) => ({
      key_id: record.keyId,
      account_id: record.accountId,
      env: record.env,
      status: record.status,
      created_at: record.createdAt,
    }));
}

/** Revokes a key by its id, for the operator who no longer has the clear key (operator CLI `key revoke --key-id`). */
export async function revokeApiKeyById(keyId: string, deps: { keys: ApiKeyStore; accounts: AccountStore }): Promise<ApiKeySummary> {
  const record = await deps.keys.findById(keyId);
  if (!record || !(await deps.keys.revoke(record.keyHash))) throw new NotFound();
  await deps.accounts.forgetKey(record.accountId, record.keyId);
  return { key_id: record.keyId, account_id: record.accountId, env: record.env, status: 'revoked', created_at: record.createdAt };
}
