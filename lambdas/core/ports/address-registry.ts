/**
 * The registry of every address ever issued: its entries are never deleted, so an address is
 * never issued twice, even after its email expired (contract: Emails). A storage fault is thrown
 * (503 `Unavailable` when worth retrying), never read as a free address.
 */
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
