/** A hostname on which addresses can be created and received. */
export interface Domain {
  domain: string;
  createEnabled: boolean;
  receiveEnabled: boolean;
}

/**
 * The domains the operator configured. A storage fault is thrown (503 `Unavailable` when worth
 * retrying), never read as an unknown domain.
 */
export interface DomainStore {
  /** Stores a domain, replacing the one of the same name. */
  put(domain: Domain): Promise<void>;
  get(domain: string): Promise<Domain | undefined>;
  /** Every domain, in no particular order. */
  list(): Promise<Domain[]>;
}
