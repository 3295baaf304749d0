/**
 * The ports of addresses and mail: reservations, the registry of issued addresses, idempotency
 * records, messages and blobs. Adapters implement them; the core never imports an adapter.
 */

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
  /**
   * An account's emails, newest first: at most `limit` after the position `after`, and the
   * position of the next page when there is one.
   */
  listByAccount(accountId: string, page: { limit: number; after?: string }): Promise<{ items: EmailRecord[]; next?: string }>;
}

/** What one read of the delivery path found (each map holds only the keys that exist). */
export interface DeliveryReadResult {
  domains: Map<string, import('./ports').Domain>;
  /** Address → the email it was issued to. */
  emailIds: Map<string, string>;
  /** Email id → the email, read consistently. */
  emails: Map<string, EmailRecord>;
  /** Message id → the message, as the latest write left it. */
  messages: Map<string, MessageRecord>;
}

/**
 * The reads of one mail's delivery decision made together (DynamoDB: one BatchGetItem across the
 * domains, the address registry, the emails and the messages), so that a received mail stays
 * within its call budget however many keys it needs. Emails and messages are read consistently
 * (a reservation just made; the exactly-once check).
 */
export interface DeliveryReads {
  read(keys: {
    domains?: readonly string[];
    addresses?: readonly string[];
    emailIds?: readonly string[];
    messageIds?: readonly string[];
  }): Promise<DeliveryReadResult>;
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
  /** `refused`: the create was answered with a charged refusal (409, 422), kept in `refusal`. */
  status: 'in_progress' | 'completed' | 'refused';
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
  /** What a refused create answered: every duplicate and retry of it is answered the same. */
  refusal?: Refusal;
}

/** A refusal as stored: the contract error's code, message and details. */
export interface Refusal {
  code: string;
  message: string;
  details?: { reason: string; field?: string }[];
}

export interface IdempotencyStore {
  /**
   * Stores a new record unless a live one exists; then returns that one instead. A refused
   * record of another request does not hold the key: the new record replaces it.
   */
  begin(record: IdempotencyRecord, now: number): Promise<{ outcome: 'started' } | { outcome: 'exists'; record: IdempotencyRecord }>;
  get(recordKey: string): Promise<IdempotencyRecord | undefined>;
  /** Takes over an in-progress record whose lease has run out; false when someone else holds it. */
  takeOver(recordKey: string, lease: { until: number; token: string }, now: number): Promise<boolean>;
  /** Changes the planned address of a record this attempt holds. */
  replan(recordKey: string, leaseToken: string, plan: { address: string; localPart: string }): Promise<void>;
  /**
   * Marks the record completed; the email it names is the answer to every replay. It takes no
   * lease: whoever completes, the planned email exists, and a lost lease does not undo the create.
   */
  complete(recordKey: string): Promise<void>;
  /** Gives up the lease so that a retry can resume at once (after a failure). */
  release(recordKey: string, leaseToken: string): Promise<void>;
  /** Marks a record this attempt holds refused, with the answer every duplicate then gets. */
  refuse(recordKey: string, leaseToken: string, refusal: Refusal): Promise<void>;
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
  /** Stores a blob from bytes or a stream; resolves once it is stored as durably as the items that point at it, with its size. */
  put(key: string, body: Buffer | import('node:stream').Readable, options?: { contentType?: string }): Promise<{ size: number }>;
  /** Reads a blob; undefined when absent; `notModified` when `ifNoneMatch` names its current ETag. */
  get(key: string, options?: { ifNoneMatch?: string }): Promise<BlobRead | undefined>;
  /** Deletes a blob; an absent one is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Deletes many blobs (S3: up to 1,000 a call); absent ones are not errors. Keys it could not
   * delete are thrown as `BlobsNotDeleted`, each with its reason: every key not named there is gone.
   */
  deleteMany(keys: readonly string[]): Promise<void>;
  /**
   * Every blob under a prefix in ascending key order, as S3 lists (keys are ASCII, so by code
   * unit), each with the time storage wrote it; with `startAfter`, only the keys after that one.
   * A caller may stop reading at any point: nothing further is fetched.
   */
  list(prefix: string, options?: { startAfter?: string }): AsyncIterable<ListedBlob>;
}

/** A listed blob. */
export interface ListedBlob {
  key: string;
  /** When it was last written, by the storage's own clock (S3's LastModified, a file's mtime). */
  written: Date;
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

/** The attachment list kept inline on the item, or in the blob store (as JSON) when large. */
export type StoredAttachments = { inline: AttachmentRecord[] } | { blobKey: string; sizeBytes: number };

/**
 * What a listing shows of a message: exactly the fields the `by_email` index projects, so a
 * listing reads the index alone.
 */
export interface MessageSummary {
  messageId: string;
  emailId: string;
  from: string;
  to: string[];
  subject: string;
  receivedAt: string;
  expiresAt: string;
  sizeBytes: number;
  attachmentCount: number;
}

/** One received mail as delivered to one of our addresses. */
export interface MessageRecord extends MessageSummary {
  accountId: string;
  /** The received mail this message came from: its blobs live under `mail/<mailId>/`. */
  mailId: string;
  text: StoredBody;
  html: StoredBody;
  attachments: StoredAttachments;
  rawKey: string;
}

/** What the sweeper needs of an expired message: the `by_expiry` index's projection. */
export interface ExpiringMessage {
  messageId: string;
  mailId: string;
  rawKey: string;
  expiresAt: string;
}

export interface MessagePage {
  items: MessageSummary[];
  /** Where the next page starts, when there is one. */
  next?: string;
}

export interface MessageStore {
  /**
   * Writes a new message; `exists` when a message with its id is already stored (a delivery
   * made again), which is left as it is.
   */
  put(message: MessageRecord): Promise<'created' | 'exists'>;
  /** A message by id; `consistent` reads what the latest write left (the delivery's own check). */
  get(messageId: string, options?: { consistent?: boolean }): Promise<MessageRecord | undefined>;
  /**
   * An email's messages received after `receivedAfter`, newest first, from a position: a full
   * page unless the listing ends there, and `next` only when a further message exists.
   */
  listByEmail(emailId: string, page: { receivedAfter: string; after?: string; limit: number }): Promise<MessagePage>;
  /**
   * Messages whose expiry lies between the two moments (both included), at most `limit` of them
   * in order of expiry, through the expiry index (never a scan). `moreFrom` when the window may
   * hold messages beyond those: the earliest expiry any of them can have.
   */
  expiring(from: Date, until: Date, limit: number): Promise<{ messages: ExpiringMessage[]; moreFrom?: string }>;
  /** Deletes messages by id (DynamoDB: 25 a call); absent ones are not errors. A fault is thrown, never dropped. */
  deleteMany(messageIds: readonly string[]): Promise<void>;
}

/** One event the parser gave up on, as the dead-letter queue holds it. */
export interface DeadLetter {
  /** The SES receipt event, as JSON: Lambda puts the original event in the message body. */
  body: string;
  /** What removes it from the queue. */
  receipt: string;
}

/** The parser's dead-letter queue: SQS in AWS. */
export interface DeadLetterQueue {
  /** Up to a batch of dead letters, hidden from other readers for a while; empty when none is left. */
  receive(): Promise<DeadLetter[]>;
  delete(receipt: string): Promise<void>;
}
