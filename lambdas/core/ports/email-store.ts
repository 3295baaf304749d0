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

/**
 * The reserved addresses (contract: Email). An email is written once; its expiry is data the
 * rules compare with the clock, so a read may return an expired one. A storage fault is thrown
 * (503 `Unavailable` when worth retrying), never read as an absent email.
 */
export interface EmailStore {
  /** Stores a new email; `exists` when an email with this id is already stored. */
  create(email: EmailRecord): Promise<'created' | 'exists'>;
  /** An email by id, read consistently: one just reserved is seen at once. */
  get(emailId: string): Promise<EmailRecord | undefined>;
  /**
   * An account's emails, newest first: at most `limit` after the position `after`, and the
   * position of the next page when there is one.
   */
  listByAccount(accountId: string, page: { limit: number; after?: string }): Promise<{ items: EmailRecord[]; next?: string }>;
}
