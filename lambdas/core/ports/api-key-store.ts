export type ApiKeyStatus = 'active' | 'revoked';

/** A key as stored: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  keyHash: string;
  keyId: string;
  accountId: string;
  env: string;
  status: ApiKeyStatus;
  createdAt: string;
  /** The customer's name for the key (console keys); absent on keys the operator made. */
  label?: string;
  /** The key's first characters: enough to recognize it, far too few to use it. */
  prefix?: string;
}

/**
 * The API keys, found by the SHA-256 of the key: the key itself is never stored, so nothing read
 * from here can authenticate. A revoked key stays, marked, so its id keeps naming it. A storage
 * fault is thrown (503 `Unavailable` when worth retrying), never read as an unknown key.
 */
export interface ApiKeyStore {
  /** Stores a new key; throws the storage's condition failure if its hash is already stored. */
  put(record: ApiKeyRecord): Promise<void>;
  /** The key with this hash, read consistently: a key just made or revoked is seen at once. */
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Every key of an account, oldest first (the account index orders by creation time). */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when no such key exists. */
  revoke(keyHash: string): Promise<boolean>;
  /** The key with this id (`key_…`), when there is one: a full read, for the operator only. */
  findById(keyId: string): Promise<ApiKeyRecord | undefined>;
}
