import type { Clock } from './ports/clock';
import { isActive } from './emails';
import { deliveredMessageId } from './ids';
import type { DeliveryReads } from './ports/delivery-reads';
import type { EmailRecord } from './ports/email-store';
import type { MessageRecord, MessageStore } from './ports/message-store';
import type { DeliveryRecipient, RecipientMemory } from './recipients';

export interface DeliveryDeps {
  messages: MessageStore;
  deliveryReads: DeliveryReads;
  clock: Clock;
  /** Message lifetime: also the length of a delivery window. */
  messageTtlSeconds: number;
  /** Learns what this read finds of each domain, so that the next RCPT TO answers from it. */
  recipientMemory?: RecipientMemory;
}

/** A message as the ingest builds it, before the delivery decides its id. */
export type UndeliveredMessage = Omit<MessageRecord, 'messageId'>;

/** One recipient's part of a mail: the id its message has or will have, and whether it is written already. */
export interface PlannedDelivery {
  email: EmailRecord;
  messageId: string;
  /** A live copy of this mail is already stored for this email under `messageId`. */
  delivered: boolean;
}

/**
 * Which of a mail's recipients still receive, and which already hold a live copy of it, in one
 * read (docs/decisions.md: a mail delivered again): an SMTP retry after 451, a Lambda retry or the
 * same bytes sent again within the message lifetime find the live copy and leave it as it is;
 * once that copy has expired (swept or not), the same mail is delivered anew, under a new id.
 *
 * Time is cut into windows as long as a message lives, and the message id is derived from the
 * mail's identity, the email and the window of receipt. A copy that is still live was received
 * in this window or the one before (anything older has expired), so one consistent read of both
 * windows' ids and one conditional write of this window's (`deliverOnce`, for a copy written
 * concurrently) decide it; a mail found already delivered to every address writes nothing. The
 * same read takes each recipient's domain again (an operator may have disabled it since RCPT TO),
 * and the email of a recipient known only by id; each reservation is checked against the clock:
 * only these can change for a known address.
 *
 * @example await planDeliveries(emails, 'sha256:…', receivedAt, deps) // [{ email, messageId: 'msg_…', delivered: false }]
 */
export async function planDeliveries(
  recipients: readonly DeliveryRecipient[],
  mailIdentity: string,
  receivedAt: Date,
  deps: DeliveryDeps,
): Promise<PlannedDelivery[]> {
  const now = deps.clock.now();
  const current = [...new Map(recipients.filter((r) => !isRecord(r) || isActive(r, now)).map((r) => [r.emailId, r])).values()];
  if (current.length === 0) return [];
  const window = Math.floor(receivedAt.getTime() / (deps.messageTtlSeconds * 1000));
  const ids = current.map((recipient) => ({
    recipient,
    earlierId: deliveredMessageId(mailIdentity, recipient.emailId, window - 1),
    messageId: deliveredMessageId(mailIdentity, recipient.emailId, window),
  }));
  const domains = [...new Set(current.map((recipient) => recipient.domain))];
  const found = await deps.deliveryReads.read({
    domains,
    emailIds: current.filter((recipient) => !isRecord(recipient)).map((recipient) => recipient.emailId),
    messageIds: ids.flatMap(({ earlierId, messageId }) => [earlierId, messageId]),
  });
  for (const domain of domains) deps.recipientMemory?.noteDomain(domain, found.domains.get(domain)?.receiveEnabled === true);
  for (const email of found.emails.values()) deps.recipientMemory?.rememberEmail(email.address, email);
  const live = (id: string) => {
    const copy = found.messages.get(id);
    return copy !== undefined && Date.parse(copy.expiresAt) > now.getTime();
  };
  return ids.flatMap(({ recipient, earlierId, messageId }) => {
    const email = isRecord(recipient) ? recipient : found.emails.get(recipient.emailId);
    if (!email || !isActive(email, now) || !found.domains.get(email.domain)?.receiveEnabled) return [];
    if (live(earlierId)) return [{ email, messageId: earlierId, delivered: true }];
    return [{ email, messageId, delivered: live(messageId) }];
  });
}

function isRecord(recipient: DeliveryRecipient): recipient is EmailRecord {
  return 'expiresAt' in recipient;
}

/**
 * Writes a planned delivery's message once: a copy written meanwhile under the same id (the same
 * mail delivered concurrently in this window) stays as it is.
 */
export async function deliverOnce(
  message: UndeliveredMessage,
  planned: PlannedDelivery,
  deps: Pick<DeliveryDeps, 'messages'>,
): Promise<{ messageId: string; outcome: 'created' | 'exists' }> {
  if (planned.delivered) return { messageId: planned.messageId, outcome: 'exists' };
  return { messageId: planned.messageId, outcome: await deps.messages.put({ ...message, messageId: planned.messageId }) };
}
