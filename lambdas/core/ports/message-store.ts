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

/**
 * The delivered messages. A message is written once and deleted by the sweeper after it expires;
 * the bodies and attachments it names live in the `BlobStore`. A storage fault is thrown (503
 * `Unavailable` when worth retrying, `PermanentStorageFault` for an item storage will never
 * accept), never read as an absent message.
 */
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
