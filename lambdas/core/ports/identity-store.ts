/**
 * Which account each sign-in identity opened (DESIGN: console). An identity's entry is written
 * once and never changed, so one identity can never hold two accounts. A storage fault is thrown
 * (503 `Unavailable` when worth retrying), never read as an unknown identity.
 */
export interface IdentityStore {
  /** The account an identity holds, if it ever claimed one. */
  find(identity: string): Promise<string | undefined>;
  /**
   * Claims an account id for an identity, once and forever, in one conditional write. Returns
   * the account id that holds the identity: this one, or the one an earlier claim wrote.
   */
  claim(entry: { identity: string; accountId: string; createdAt: string }): Promise<string>;
}
