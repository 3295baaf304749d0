import type { Clock } from './clock';
import { deliveredMessageId } from './ids';
import type { MessageRecord, MessageStore } from './mail-ports';

export interface DeliveryDeps {
  messages: MessageStore;
  clock: Clock;
  /** Message lifetime: also the length of a delivery window. */
  messageTtlSeconds: number;
}

/** A message as the ingest builds it, before the delivery decides its id. */
export type UndeliveredMessage = Omit<MessageRecord, 'messageId'>;

/**
 * Writes one received mail's message for one address exactly once while a copy of it lives
 * (docs/decisions.md: a mail delivered again): an SMTP retry after 451, a Lambda retry or the
 * same bytes sent again within the message lifetime find the live copy and leave it as it is;
 * once that copy has expired (swept or not), the same mail is delivered anew, under a new id.
 *
 * Time is cut into windows as long as a message lives, and the message id is derived from the
 * mail's identity, the email and the window of receipt. A copy that is still live was received
 * in this window or the one before (anything older has expired), so one consistent read of the
 * earlier window's id and one conditional write of this window's decide it.
 *
 * @example await deliverOnce(message, 'sha256:…', deps) // { messageId: 'msg_…', outcome: 'created' }
 */
export async function deliverOnce(
  message: UndeliveredMessage,
  mailIdentity: string,
  deps: DeliveryDeps,
): Promise<{ messageId: string; outcome: 'created' | 'exists' }> {
  const window = Math.floor(Date.parse(message.receivedAt) / (deps.messageTtlSeconds * 1000));
  const earlierId = deliveredMessageId(mailIdentity, message.emailId, window - 1);
  const earlier = await deps.messages.get(earlierId, { consistent: true });
  if (earlier && Date.parse(earlier.expiresAt) > deps.clock.now().getTime()) return { messageId: earlierId, outcome: 'exists' };
  const messageId = deliveredMessageId(mailIdentity, message.emailId, window);
  return { messageId, outcome: await deps.messages.put({ ...message, messageId }) };
}
