import type { Domain } from './domain-store';
import type { EmailRecord } from './email-store';
import type { MessageRecord } from './message-store';

/** What one read of the delivery path found (each map holds only the keys that exist). */
export interface DeliveryReadResult {
  domains: Map<string, Domain>;
  /** Address → the email it was issued to. */
  emailIds: Map<string, string>;
  /** Email id → the email, read consistently. */
  emails: Map<string, EmailRecord>;
  /** Message id → the message, as the latest write left it. */
  messages: Map<string, MessageRecord>;
}

/**
 * The reads of one mail's delivery decision made together (DynamoDB: one BatchGetItem across the
 * domains, the address registry, the emails and the messages), so that a received mail stays
 * within its call budget however many keys it needs. Emails and messages are read consistently
 * (a reservation just made; the exactly-once check). Every key is read or the call throws: a
 * storage fault (503 `Unavailable` when worth retrying) is never read as an absent key.
 */
export interface DeliveryReads {
  read(keys: {
    domains?: readonly string[];
    addresses?: readonly string[];
    emailIds?: readonly string[];
    messageIds?: readonly string[];
  }): Promise<DeliveryReadResult>;
}
