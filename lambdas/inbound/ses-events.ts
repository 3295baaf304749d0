import type { BlobPrefix } from '../function-access';
import { newMailId } from '../core/ids';
import type { ReceivedMail } from '../mail/ingest-mail';
import { rawMailPrefix } from '../mail/raw-mail-prefix';

/** Where the SES receipt rule's S3 action puts raw messages: `<prefix><SES message id>`. */
export const sesRawPrefix = rawMailPrefix satisfies BlobPrefix;

/** The part of an SES receipt event (Lambda action) the service reads. */
export interface SesReceiptEvent {
  Records: Array<{
    ses: {
      mail: { messageId: string; timestamp: string };
      receipt: {
        recipients: string[];
        /** SES's virus scan (the rule has `scanEnabled`): PASS, FAIL, GRAY or PROCESSING_FAILED. */
        virusVerdict?: { status: string };
      };
    };
  }>;
}

/** The mail of an SES event: its id, receipt time and envelope recipients. */
export function sesMail(event: SesReceiptEvent): { messageId: string; receivedAt: Date; recipients: string[] } {
  const record = event.Records[0];
  if (!record) throw new Error('SES event without a record');
  const { mail, receipt } = record.ses;
  if (!/^[A-Za-z0-9_.-]{1,200}$/.test(mail.messageId)) throw new Error('SES event with an unexpected message id');
  return { messageId: mail.messageId, receivedAt: new Date(mail.timestamp), recipients: receipt.recipients };
}

/**
 * Whether SES's virus scan found a virus. Only FAIL counts: GRAY and PROCESSING_FAILED say the
 * scan could not decide, and the spam verdict stays informational (test mail often looks like spam).
 */
export function sesVirusFound(event: SesReceiptEvent): boolean {
  return event.Records[0]?.ses.receipt.virusVerdict?.status === 'FAIL';
}

/**
 * The received mail an SES event stands for, as the ingest takes it: its raw object under
 * `inbound/`, its envelope recipients and its receipt time as SES recorded it (never the time of
 * a later retry or redrive, so a mail expires 15 minutes after it really arrived).
 */
export function sesReceivedMail(event: SesReceiptEvent): ReceivedMail {
  const mail = sesMail(event);
  return {
    mailId: newMailId(mail.receivedAt),
    rawKey: `${sesRawPrefix}${mail.messageId}`,
    recipients: mail.recipients,
    receivedAt: mail.receivedAt,
    // The SES message id names the mail: a retried or redriven event is the same mail, delivered once.
    identity: `ses:${mail.messageId}`,
    // SES has answered the sender already: a mail past a limit is kept in part and counted.
    refusable: false,
  };
}

/** The received mail of a dead letter the SES parser left: its body is the SES event it failed on. */
export function sesDeadLetterMail(body: string): ReceivedMail {
  return sesReceivedMail(JSON.parse(body) as SesReceiptEvent);
}
