import type { Clock } from './clock';
import { InvalidRequest, NotFound } from './errors';
import { pageAfter, type Page } from './pagination';
import type { Domain, DomainStore } from './ports';

/** The domain record of `GET /v1/domains` (DESIGN: gaps, domain record). */
export interface DomainRecord {
  domain: string;
  create_enabled: boolean;
  receive_enabled: boolean;
}

const hostnamePattern = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** A domain name in canonical form (lowercase, no trailing dot), or 400 when it is not a hostname. */
export function normalizeDomain(name: string): string {
  const domain = name.trim().toLowerCase().replace(/\.$/, '');
  if (!hostnamePattern.test(domain)) {
    throw new InvalidRequest(`Not a valid hostname: ${JSON.stringify(name)}`, [
      { field: 'domain', reason: 'must be a hostname of at most 253 characters' },
    ]);
  }
  return domain;
}

/** Registers a receiving domain, enabled for creation and receiving (operator CLI `domain add`). */
export async function addDomain(name: string, deps: { domains: DomainStore }): Promise<Domain> {
  const domain: Domain = { domain: normalizeDomain(name), createEnabled: true, receiveEnabled: true };
  await deps.domains.put(domain);
  return domain;
}

/**
 * Turns a domain off for both creation and receiving (operator CLI `domain disable`): no new
 * address on it, and mail to its addresses is no longer delivered. 404 when it is not registered.
 */
export async function disableDomain(name: string, deps: { domains: DomainStore }): Promise<Domain> {
  const existing = await deps.domains.get(normalizeDomain(name));
  if (!existing) throw new NotFound();
  const domain: Domain = { ...existing, createEnabled: false, receiveEnabled: false };
  await deps.domains.put(domain);
  return domain;
}

/** Every registered domain with its two switches, in name order (operator CLI `domain list`). */
export async function registeredDomains(deps: { domains: DomainStore }): Promise<DomainRecord[]> {
  const domains = await deps.domains.list();
  return domains.map(toDomainRecord).sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}

/**
 * The domains available to the account, in name order, one page at a time
 * (contract: GET /v1/domains). Every registered domain is listed with its two switches.
 */
export async function listDomains(
  query: { accountId: string; limit: number; cursor: string | undefined },
  deps: { domains: DomainStore; cursorSecret: string; clock: Clock },
): Promise<Page<DomainRecord>> {
  return pageAfter(await registeredDomains(deps), (record) => record.domain, {
    context: { accountId: query.accountId, route: 'listDomains', pathId: '', limit: query.limit },
    cursor: query.cursor,
    cursorSecret: deps.cursorSecret,
    clock: deps.clock,
  });
}

function toDomainRecord(domain: Domain): DomainRecord {
  return { domain: domain.domain, create_enabled: domain.createEnabled, receive_enabled: domain.receiveEnabled };
}
