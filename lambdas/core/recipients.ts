import type { Clock } from './clock';
import { isActive } from './emails';
import type { DomainStore } from './ports';
import type { AddressRegistry, EmailRecord, EmailStore } from './mail-ports';

export interface RecipientDeps {
  registry: AddressRegistry;
  emails: EmailStore;
  domains: DomainStore;
  clock: Clock;
}

/**
 * The email behind an envelope recipient, when it may receive now: issued, its reservation still
 * active, its domain open for receiving (contract: an address receives while its reservation is
 * active, and never after).
 */
export async function activeRecipient(address: string, deps: RecipientDeps): Promise<EmailRecord | undefined> {
  const normalized = address.trim().toLowerCase();
  const domainName = normalized.slice(normalized.lastIndexOf('@') + 1);
  if (!normalized.includes('@') || domainName === '') return undefined;
  const domain = await deps.domains.get(domainName);
  if (!domain?.receiveEnabled) return undefined;
  const emailId = await deps.registry.lookup(normalized);
  if (!emailId) return undefined;
  const email = await deps.emails.get(emailId);
  return email && isActive(email, deps.clock.now()) ? email : undefined;
}

/**
 * The distinct active emails among a mail's envelope recipients: delivery follows RCPT TO, never
 * the To or Cc headers, so BCC works and one mail becomes one message per address.
 */
export async function activeRecipients(addresses: readonly string[], deps: RecipientDeps): Promise<EmailRecord[]> {
  const found = await Promise.all([...new Set(addresses.map((a) => a.trim().toLowerCase()))].map((a) => activeRecipient(a, deps)));
  const byId = new Map<string, EmailRecord>();
  for (const email of found) if (email) byId.set(email.emailId, email);
  return [...byId.values()];
}

/**
 * The distinct emails among those a caller resolved moments before (the SMTP intake, at RCPT TO)
 * that may still receive now. An address maps to its email for good, so only the reservation's
 * end and its domain's switch can have changed since: the reservation is checked against the
 * clock, and each domain is read once more (an operator may have disabled it in between).
 */
export async function stillActive(emails: readonly EmailRecord[], deps: Pick<RecipientDeps, 'domains' | 'clock'>): Promise<EmailRecord[]> {
  const now = deps.clock.now();
  const current = [...new Map(emails.filter((email) => isActive(email, now)).map((email) => [email.emailId, email])).values()];
  const domains = [...new Set(current.map((email) => email.domain))];
  const receiving = new Set(
    (await Promise.all(domains.map((name) => deps.domains.get(name)))).filter((domain) => domain?.receiveEnabled).map((domain) => domain!.domain),
  );
  return current.filter((email) => receiving.has(email.domain));
}
