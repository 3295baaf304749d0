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

/**
 * The idempotency records of creates (contract: Idempotency-Key), in the manner of Powertools'
 * idempotency utility: one attempt at a time holds a record's lease, and each change is one
 * conditional write, so two attempts never both create. Records are read consistently. A storage
 * fault is thrown (503 `Unavailable` when worth retrying).
 */
export interface IdempotencyStore {
  /**
   * Stores a new record unless a live one exists; then returns that one instead. A refused
   * record of another request does not hold the key: the new record replaces it.
   */
  begin(record: IdempotencyRecord, now: number): Promise<{ outcome: 'started' } | { outcome: 'exists'; record: IdempotencyRecord }>;
  get(recordKey: string): Promise<IdempotencyRecord | undefined>;
  /** Takes over an in-progress record whose lease has run out; false when someone else holds it. */
  takeOver(recordKey: string, lease: { until: number; token: string }, now: number): Promise<boolean>;
  /** Changes the planned address of a record this attempt holds; throws when the lease is lost, so nothing claims the old plan's address. */
  replan(recordKey: string, leaseToken: string, plan: { address: string; localPart: string }): Promise<void>;
  /**
   * Marks the record completed; the email it names is the answer to every replay. It takes no
   * lease: whoever completes, the planned email exists, and a lost lease does not undo the create.
   * Nothing happens when the record is gone.
   */
  complete(recordKey: string): Promise<void>;
  /** Gives up the lease so that a retry can resume at once (after a failure); nothing when the lease is no longer held. */
  release(recordKey: string, leaseToken: string): Promise<void>;
  /** Marks a record this attempt holds refused, with the answer every duplicate then gets; nothing when the lease is no longer held. */
  refuse(recordKey: string, leaseToken: string, refusal: Refusal): Promise<void>;
}
