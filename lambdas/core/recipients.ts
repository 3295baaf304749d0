import type { Clock } from './ports/clock';
import { isActive } from './emails';
import type { DeliveryReads } from './ports/delivery-reads';
import type { EmailRecord, EmailStore } from './ports/email-store';
import type { Domain } from './ports/domain-store';

/**
 * A recipient of a mail: its email as looked up moments before (the SMTP intake at RCPT TO), or
 * only the email's id and domain as the address registry gives them (the SES parser), in which
 * case the delivery read takes the email too.
 */
export type DeliveryRecipient = EmailRecord | Pick<EmailRecord, 'emailId' | 'domain'>;

export interface RecipientDeps {
  deliveryReads: DeliveryReads;
  emails: EmailStore;
  clock: Clock;
  /** What this runtime found in earlier lookups; without it, every lookup reads. */
  recipientMemory?: RecipientMemory;
}

/**
 * The email behind an envelope recipient, when it may receive now: issued, its reservation still
 * active, its domain open for receiving (contract: an address receives while its reservation is
 * active, and never after). Two reads: the domain and the registry together, then the email; none
 * for an address and domain the runtime's `RecipientMemory` holds.
 */
export async function activeRecipient(address: string, deps: RecipientDeps): Promise<EmailRecord | undefined> {
  return (await activeRecipients([address], deps))[0];
}

/**
 * The distinct active emails among a mail's envelope recipients: delivery follows RCPT TO, never
 * the To or Cc headers, so BCC works and one mail becomes one message per address. The domains
 * and registry entries of every recipient are read in one request, then each email; what the
 * runtime's memory holds is not read again.
 */
export async function activeRecipients(addresses: readonly string[], deps: RecipientDeps): Promise<EmailRecord[]> {
  const normalized = normalize(addresses);
  if (normalized.length === 0) return [];
  const memory = deps.recipientMemory;
  const unknown = normalized.filter((a) => !memory?.email(a));
  const domains = [...new Set(normalized.map(domainOf))].filter((domain) => !memory?.receives(domain));
  const found =
    unknown.length > 0 || domains.length > 0
      ? await deps.deliveryReads.read({ domains, addresses: unknown })
      : { domains: new Map<string, Domain>(), emailIds: new Map<string, string>() };
  for (const domain of domains) memory?.noteDomain(domain, found.domains.get(domain)?.receiveEnabled === true);
  const receiving = normalized.filter((a) => found.domains.get(domainOf(a))?.receiveEnabled ?? memory?.receives(domainOf(a)) ?? false);

  const emails = await Promise.all(
    receiving.map(async (address) => {
      const remembered = memory?.email(address);
      if (remembered) return remembered;
      const emailId = found.emailIds.get(address);
      const email = emailId === undefined ? undefined : await deps.emails.get(emailId);
      if (email) memory?.rememberEmail(address, email);
      return email;
    }),
  );
  const now = deps.clock.now();
  const active = emails.filter((email): email is EmailRecord => email !== undefined && isActive(email, now));
  return [...new Map(active.map((email) => [email.emailId, email])).values()];
}

/**
 * A mail's recipients as the delivery read takes them (the SES parser, which runs apart from the
 * recipient filter): each address's email id from the registry, all in one read, or the email
 * itself when remembered. Their domains, emails and live copies are then read together
 * (`planDeliveries`), so a mail to one address costs 3 calls with its write, 2 when remembered.
 */
export async function registeredRecipients(addresses: readonly string[], deps: RecipientDeps): Promise<DeliveryRecipient[]> {
  const normalized = normalize(addresses);
  const memory = deps.recipientMemory;
  const unknown = normalized.filter((a) => !memory?.email(a));
  const found = unknown.length > 0 ? await deps.deliveryReads.read({ addresses: unknown }) : undefined;
  return normalized.flatMap((address): DeliveryRecipient[] => {
    const remembered = memory?.email(address);
    if (remembered) return [remembered];
    const emailId = found?.emailIds.get(address);
    return emailId === undefined ? [] : [{ emailId, domain: domainOf(address) }];
  });
}

/** How long a domain found receiving is taken as receiving without being read again, at most. */
export const domainMemoryMs = 5_000;
/** How many addresses' emails one runtime remembers; the least recently used goes first. */
export const rememberedEmails = 10_000;

/**
 * What one runtime found in its recipient lookups, so that mail to the same addresses does not
 * read them again (docs/decisions.md: recipients remembered). Only what cannot go wrong is kept:
 *
 * - an address's email, for good: an address is issued to one email forever and an email record
 *   never changes; its reservation ends by the clock, which every check applies, so an expired
 *   address is refused from memory as from storage;
 * - that a domain receives, for at most `domainMemoryMs` after it was read: an operator's
 *   `domain disable` is refused at RCPT TO within that window, and delivery itself always reads
 *   the domain again (`planDeliveries`), so nothing is delivered on a disabled domain.
 *
 * Nothing is kept of an address not found or a domain that does not receive: an address created
 * a moment ago receives at once, and so does a domain added or enabled again.
 */
export class RecipientMemory {
  private readonly emails = new Map<string, EmailRecord>();
  private readonly domainsReadAt = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** The email issued an address (lower case), when it was found before. */
  email(address: string): EmailRecord | undefined {
    const email = this.emails.get(address);
    if (email) {
      // Least recently used first out: a map iterates in insertion order.
      this.emails.delete(address);
      this.emails.set(address, email);
    }
    return email;
  }

  rememberEmail(address: string, email: EmailRecord): void {
    this.emails.delete(address);
    this.emails.set(address, email);
    if (this.emails.size > rememberedEmails) this.emails.delete(this.emails.keys().next().value!);
  }

  /** Whether the domain was read receiving within the window. */
  receives(domain: string): boolean {
    const readAt = this.domainsReadAt.get(domain);
    return readAt !== undefined && this.clock.now().getTime() - readAt < domainMemoryMs;
  }

  /** What a read found of a domain: receiving is kept for the window, anything else forgotten. */
  noteDomain(domain: string, receiving: boolean): void {
    if (receiving) this.domainsReadAt.set(domain, this.clock.now().getTime());
    else this.domainsReadAt.delete(domain);
  }
}

/** Each distinct address, trimmed and in lower case, that has a domain. */
function normalize(addresses: readonly string[]): string[] {
  return [...new Set(addresses.map((a) => a.trim().toLowerCase()))].filter((a) => a.includes('@') && domainOf(a) !== '');
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
