import type { Clock } from './ports/clock';
import { InvalidRequest, NotFound, PolicyViolation } from './errors';
import { pageAfter, type Page } from './pagination';
import type { Domain, DomainStore } from './ports/domain-store';

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

/**
 * The domains mail can reach where SES receives it: the recipients of the stack's receipt rule,
 * fixed at deployment (its `domains` context). `undefined` where the service's own SMTP intake
 * receives (`npm start`): that takes every registered domain, so there every one receives.
 */
export type ReceiptRuleDomains = readonly string[] | undefined;

/** The receipt rule's domains from their comma-separated list (`RECEIPT_RULE_DOMAINS`, as the stack writes it). */
export function receiptRuleDomainsFrom(list: string): string[] {
  return list
    .split(',')
    .filter((name) => name.trim() !== '')
    .map(normalizeDomain);
}

/** Whether mail to the domain reaches the service: the receipt rule covers it, or there is none. */
export function reachesService(domain: string, receiptRule: ReceiptRuleDomains): boolean {
  return receiptRule === undefined || receiptRule.includes(domain);
}

/**
 * `domain add` of a domain the stack's receipt rule does not cover: SES would refuse every mail
 * to it, so it is not registered; the stack must be redeployed with it among its domains.
 */
export class OutsideReceiptRule extends PolicyViolation {
  constructor(
    readonly domain: string,
    /** The receipt rule's domains with this one: what the stack should be redeployed with. */
    readonly redeployDomains: string[],
  ) {
    super(`${domain} is not among the domains the SES receipt rule covers: mail to it would be refused.`, [
      { field: 'domain', reason: 'domain_not_allowed' },
    ]);
  }
}

/**
 * Registers a receiving domain, enabled for creation and receiving (operator CLI `domain add`).
 * Only a domain mail can reach (DESIGN: a domain the API lists as receiving receives in AWS).
 */
export async function addDomain(name: string, deps: { domains: DomainStore; receiptRule?: ReceiptRuleDomains }): Promise<Domain> {
  const domain: Domain = { domain: normalizeDomain(name), createEnabled: true, receiveEnabled: true };
  if (!reachesService(domain.domain, deps.receiptRule)) throw new OutsideReceiptRule(domain.domain, [...deps.receiptRule!, domain.domain]);
  await deps.domains.put(domain);
  return domain;
}

/**
 * The domain store as the service must read it: a domain the receipt rule does not cover (one
 * registered in the table by hand, or by an older `domain add`) does not receive, so no address
 * is created on it and the listing does not call it receiving.
 */
export function withinReceiptRule(store: DomainStore, receiptRule: ReceiptRuleDomains): DomainStore {
  if (receiptRule === undefined) return store;
  const served = (domain: Domain): Domain => (reachesService(domain.domain, receiptRule) ? domain : { ...domain, receiveEnabled: false });
  return {
    put: (domain) => store.put(domain),
    get: async (name) => {
      const domain = await store.get(name);
      return domain && served(domain);
    },
    list: async () => (await store.list()).map(served),
  };
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
