import type { Plan } from './plans';

/**
 * The ports through which the rules reach storage. Adapters implement them (DynamoDB in both
 * runtimes); the core never imports an adapter.
 */

export type AccountStatus = 'active' | 'suspended';

/** The allowance counters held on the account item. */
export interface Allowance {
  /** The plan's allowance at opening (100 free, 10,000 paid). */
  base: number;
  /** Requests granted by the operator on top of the base. */
  additional: number;
  /** Requests left; never below zero. */
  remaining: number;
}

export interface Account {
  accountId: string;
  plan: Plan;
  status: AccountStatus;
  /** The environment whose keys may authenticate as this account. */
  env: string;
  createdAt: string;
  allowance: Allowance;
}

export interface AccountStore {
  /** Stores a new account; fails if the id exists. */
  create(account: Account): Promise<void>;
  get(accountId: string): Promise<Account | undefined>;
  /** Sets the status; false when the account does not exist. */
  setStatus(accountId: string, status: AccountStatus): Promise<boolean>;
}

/** One request's admission: the short-window counters it counts against, and whether it is charged. */
export interface Admission {
  keyId: string;
  /** Take one unit of allowance as well (a charged operation). */
  charge: boolean;
  /** The current short window (minutes since the epoch) and its limits. */
  window: { id: number; perKey: number; perAccount: number };
}

/** What an admission found. */
export type ReserveOutcome =
  | { outcome: 'reserved'; account: Account }
  | { outcome: 'exhausted'; account: Account }
  | { outcome: 'rate_limited'; account: Account; scope: 'key' | 'account' }
  | { outcome: 'suspended' }
  | { outcome: 'absent' };

/** The allowance counter and the short-window counters: every change is one conditional single-item write. */
export interface Ledger {
  /**
   * Admits one request of an active account: counts it in the short window of its key and its
   * account, and for a charged operation takes one unit of allowance, all or nothing. The
   * allowance never goes below zero and a refused request changes nothing.
   */
  reserve(accountId: string, admission: Admission): Promise<ReserveOutcome>;
  /** Gives back one unit taken by `reserve`, for an outcome that is not charged. */
  refund(accountId: string): Promise<void>;
  /** Adds requests to the remaining and the additional allowance; undefined when the account is absent. */
  grant(accountId: string, requests: number): Promise<Allowance | undefined>;
}

export type ApiKeyStatus = 'active' | 'revoked';

/** A key as stored: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  keyHash: string;
  keyId: string;
  accountId: string;
  env: string;
  status: ApiKeyStatus;
  createdAt: string;
}

export interface ApiKeyStore {
  put(record: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Marks the key revoked; false when no such key exists. */
  revoke(keyHash: string): Promise<boolean>;
}

/** A hostname on which addresses can be created and received. */
export interface Domain {
  domain: string;
  createEnabled: boolean;
  receiveEnabled: boolean;
}

export interface DomainStore {
  put(domain: Domain): Promise<void>;
  get(domain: string): Promise<Domain | undefined>;
  /** Every domain, in no particular order. */
  list(): Promise<Domain[]>;
}

/** A reserved receiving address (contract: Email), as stored. */
export interface EmailRecord {
  emailId: string;
  accountId: string;
  address: string;
  localPart: string;
  domain: string;
  createdAt: string;
  expiresAt: string;
}

export interface EmailStore {
  /** Stores a new email; `exists` when an email with this id is already stored. */
  create(email: EmailRecord): Promise<'created' | 'exists'>;
  get(emailId: string): Promise<EmailRecord | undefined>;
}

/** The registry of every address ever issued: its entries are never deleted. */
export interface AddressRegistry {
  /** The email an address was issued to, if it ever was. */
  lookup(address: string): Promise<string | undefined>;
  /**
   * Claims an address for an email, once and forever. `claimed` when this call (or an earlier
   * one for the same email) holds it; otherwise the email id that holds it.
   */
  claim(entry: { address: string; emailId: string; accountId: string; claimedAt: string }): Promise<
    { outcome: 'claimed' } | { outcome: 'taken'; heldBy: string }
  >;
}

/** A create in flight or done, under one account's Idempotency-Key. */
export interface IdempotencyRecord {
  /** Account, operation and the SHA-256 of the client's key. */
  recordKey: string;
  /** SHA-256 of the canonical request: equal hashes are equivalent requests. */
  requestHash: string;
  status: 'in_progress' | 'completed';
  /** The email this request creates: chosen at the first attempt, kept by every retry. */
  emailId: string;
  /** The address this request claims, likewise chosen once. */
  address: string;
  localPart: string;
  domain: string;
  /** Unix milliseconds until which the current attempt owns the record. */
  leaseUntil: number;
  /** Who holds the lease: a random token of the attempt. */
  leaseToken: string;
  /** Unix milliseconds after which the record is forgotten (24 hours). */
  expiresAt: number;
}

export interface IdempotencyStore {
  /** Stores a new record unless a live one exists; then returns that one instead. */
  begin(record: IdempotencyRecord, now: number): Promise<{ outcome: 'started' } | { outcome: 'exists'; record: IdempotencyRecord }>;
  get(recordKey: string): Promise<IdempotencyRecord | undefined>;
  /** Takes over an in-progress record whose lease has run out; false when someone else holds it. */
  takeOver(recordKey: string, lease: { until: number; token: string }, now: number): Promise<boolean>;
  /** Changes the planned address of a record this attempt holds. */
  replan(recordKey: string, leaseToken: string, plan: { address: string; localPart: string }): Promise<void>;
  /** Marks the record completed; the email it names is the answer to every replay. */
  complete(recordKey: string, leaseToken: string): Promise<void>;
  /** Gives up the lease so that a retry can resume at once (after a failure). */
  release(recordKey: string, leaseToken: string): Promise<void>;
  /** Forgets the record, so the key may be tried again (after a refusal that created nothing). */
  discard(recordKey: string, leaseToken: string): Promise<void>;
}

/** What a blob read found: the bytes as a stream, or that the caller's copy is current. */
export type BlobRead =
  | { notModified: true; etag: string }
  | { notModified: false; body: import('node:stream').Readable; size: number; etag: string; contentType?: string };

/**
 * Raw sources, attachments and large bodies: S3 in production, a directory locally. Keys are
 * generated ids of the form `segment/segment/…` (letters, digits, `_`, `-`, `.` but never `..`),
 * never filenames. Both implementations pass one shared contract suite.
 */
export interface BlobStore {
  /** Stores a blob from bytes or a stream; resolves once it is durably stored, with its size. */
  put(key: string, body: Buffer | import('node:stream').Readable, options?: { contentType?: string }): Promise<{ size: number }>;
  /** Reads a blob; undefined when absent; `notModified` when `ifNoneMatch` names its current ETag. */
  get(key: string, options?: { ifNoneMatch?: string }): Promise<BlobRead | undefined>;
  /** Deletes a blob; an absent one is not an error. */
  delete(key: string): Promise<void>;
  /** Every key under a prefix, in no particular order. */
  list(prefix: string): AsyncIterable<string>;
}

/** Attachment metadata of a message, as stored: the blob key never leaves the service. */
export interface AttachmentRecord {
  attachmentId: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  blobKey: string;
}

/** A body part kept inline on the item, or in the blob store when large. */
export type StoredBody = { inline: string } | { blobKey: string; sizeBytes: number };

/** One received mail as delivered to one of our addresses. */
export interface MessageRecord {
  messageId: string;
  emailId: string;
  accountId: string;
  /** The received mail this message came from: its blobs live under `mail/<mailId>/`. */
  mailId: string;
  from: string;
  to: string[];
  subject: string;
  receivedAt: string;
  expiresAt: string;
  sizeBytes: number;
  text: StoredBody;
  html: StoredBody;
  attachments: AttachmentRecord[];
  rawKey: string;
}

export interface MessagePage {
  items: MessageRecord[];
  /** Where the next page starts, when there is one. */
  next?: string;
}

export interface MessageStore {
  put(message: MessageRecord): Promise<void>;
  get(messageId: string): Promise<MessageRecord | undefined>;
  /** An email's messages received after `receivedAfter`, newest first, from a position. */
  listByEmail(emailId: string, page: { receivedAfter: string; after?: string; limit: number }): Promise<MessagePage>;
  /** Messages whose expiry lies between the two moments, through the expiry index (never a scan). */
  expiring(from: Date, until: Date): Promise<MessageRecord[]>;
  delete(messageId: string): Promise<void>;
}
