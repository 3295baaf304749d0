import type { Clock } from './clock';
import { isActive } from './emails';
import type { DeliveryReads, EmailRecord, EmailStore } from './mail-ports';

export interface RecipientDeps {
  deliveryReads: DeliveryReads;
  emails: EmailStore;
  clock: Clock;
}

/**
 * The email behind an envelope recipient, when it may receive now: issued, its reservation still
 * active, its domain open for receiving (contract: an address receives while its reservation is
 * active, and never after). Two reads: the domain and the registry together, then the email.
 */
export async function activeRecipient(address: string, deps: RecipientDeps): Promise<EmailRecord | undefined> {
  return (await activeRecipients([address], deps))[0];
}

/**
 * The distinct active emails among a mail's envelope recipients: delivery follows RCPT TO, never
 * the To or Cc headers, so BCC works and one mail becomes one message per address. The domains
 * and registry entries of every recipient are read in one request, then each email.
 */
export async function activeRecipients(addresses: readonly string[], deps: RecipientDeps): Promise<EmailRecord[]> {
  const normalized = [...new Set(addresses.map((a) => a.trim().toLowerCase()))].filter((a) => a.includes('@') && domainOf(a) !== '');
  if (normalized.length === 0) return [];
  const found = await deps.deliveryReads.read({ domains: normalized.map(domainOf), addresses: normalized });
  const emailIds = new Set(
    normalized.filter((a) => found.domains.get(domainOf(a))?.receiveEnabled).flatMap((a) => found.emailIds.get(a) ?? []),
  );
  const emails = await Promise.all([...emailIds].map((id) => deps.emails.get(id)));
  const now = deps.clock.now();
  return emails.filter((email): email is EmailRecord => email !== undefined && isActive(email, now));
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
