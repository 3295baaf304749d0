import type { Readable } from 'node:stream';
import type { Clock } from '../core/ports/clock';
import { MailRefused } from '../core/errors';
import { deliverOnce, planDeliveries, type UndeliveredMessage } from '../core/deliveries';
import type { HtmlRenderer } from '../core/ports/html-renderer';
import type { Logger } from '../core/ports/logger';
import type { BlobStore } from '../core/ports/blob-store';
import type { EmailRecord } from '../core/ports/email-store';
import type { AttachmentRecord, MessageStore, StoredAttachments, StoredBody } from '../core/ports/message-store';
import { registeredRecipients, type RecipientDeps } from '../core/recipients';
import { countMetric } from './metrics';
import { mimeLimits, parseMail, type ParsedMail } from './parse-mail';
import { idPrefixFor, sanitizeEmailHtml } from './sanitize-email-html';
import { textOfHtml } from './text-of-html';

export interface IngestDeps extends RecipientDeps {
  messages: MessageStore;
  blobs: BlobStore;
  clock: Clock;
  logger: Logger;
  /** The stage (`TEMPMAIL_ENV`): its metrics are counted apart from another stage's of the account. */
  env: string;
  /** Message lifetime: 15 minutes (a local override may shorten it). */
  messageTtlSeconds: number;
}

export interface ReceivedMail {
  /** The id under which this mail's blobs live (`mail/<mailId>/…`). */
  mailId: string;
  /** Where the raw message already is: SES's S3 object, or the SMTP intake's blob. */
  rawKey: string;
  /** The envelope recipients (RCPT TO). */
  recipients: readonly string[];
  /**
   * What stays the same when this mail is delivered again: the SES message id, or the hash of
   * the raw bytes the SMTP intake received. Each address gets one message per identity.
   */
  identity: string;
  receivedAt: Date;
  /**
   * Whether the sender still waits for the answer (the SMTP intake), so that a mail that cannot
   * be taken whole is refused; SES has accepted the mail already, so there it is kept in part.
   */
  refusable: boolean;
  /**
   * The emails the caller resolved from these recipients moments before (the SMTP intake, at
   * RCPT TO), so that ingest checks only that they are still active instead of looking each up
   * again. Absent (SES), every recipient is looked up.
   */
  knownRecipients?: readonly EmailRecord[];
  /**
   * The mail as the caller read it (`readMail`) while its raw copy was written (the SMTP intake
   * tees its stream into the parser), with the raw copy's size. Absent (SES), the raw copy is
   * read back and read once the recipients are known to receive it.
   */
  parsed?: { mail: ParsedMail; sizeBytes: number };
}

/** Bodies up to this size stay on the message item; larger ones go to the blob store. */
export const inlineBodyMaxBytes = 32 * 1024;
/** An attachment list up to this size (as JSON) stays on the message item; a larger one goes to the blob store. */
export const inlineAttachmentsMaxBytes = 32 * 1024;

/**
 * The one ingest path of both runtimes (SES parser Lambda, local SMTP intake): finds the active
 * addresses among the envelope recipients, parses the raw message once (as it arrives over SMTP,
 * read back from storage for SES), sanitizes its HTML, and writes one message per address. It
 * resolves only once everything is written, so the caller's acknowledgement (SMTP 250) is a
 * promise kept; a failure before that leaves at most blobs without a message, which the sweeper
 * removes, and messages for some of the addresses, which a repeated delivery finds by their
 * derived ids rather than writing twice.
 */
export async function ingestMail(mail: ReceivedMail, deps: IngestDeps): Promise<{ messageIds: string[] }> {
  if (expiredBeforeIngest(mail, deps)) {
    // A late event (Lambda's queue, a retry) would only write messages that are already gone.
    await deps.blobs.delete(mail.rawKey);
    deps.logger.warn('mail expired before ingest', { mail_id: mail.mailId, ...countMetric('MailExpiredBeforeIngest', deps.clock.now(), deps.env) });
    return { messageIds: [] };
  }
  const candidates = mail.knownRecipients ?? (await registeredRecipients(mail.recipients, deps));
  // One read: each domain again (it may have been disabled meanwhile), each email not yet read, and any live earlier copy (exactly once per address).
  const planned = await planDeliveries(candidates, mail.identity, mail.receivedAt, deps);
  if (planned.length === 0 || planned.every(({ delivered }) => delivered)) {
    // Parsed on arrival for nothing: its attachments go now rather than with the sweeper.
    if (mail.parsed) await discardAttachments(mail.parsed.mail, deps.blobs);
    if (planned.length === 0) return { messageIds: [] };
    deps.logger.info('mail delivered', { mail_id: mail.mailId, messages: 0, already_delivered: planned.length });
    return { messageIds: planned.map(({ messageId }) => messageId) };
  }

  const keyPrefix = `mail/${mail.mailId}`;
  const { mail: parsed, sizeBytes } = mail.parsed ?? (await readStored(mail, deps.blobs));
  if (parsed.truncated) {
    if (mail.refusable) throw new MailRefused(parsed.truncated);
    deps.logger.warn('mail truncated', {
      mail_id: mail.mailId,
      reason: parsed.truncated,
      attachments_kept: parsed.attachments.length,
      attachment_limit: mimeLimits.attachments,
      part_limit: mimeLimits.parts,
      ...countMetric('MailTruncated', deps.clock.now(), deps.env),
    });
  }
  if (parsed.failure) {
    deps.logger.warn('mail parsed in part', { mail_id: mail.mailId, failure: parsed.failure, size_bytes: sizeBytes });
  }
  const text = await storeBody(parsed.text, `${keyPrefix}/text`, deps.blobs);
  const html = await storeBody(parsed.html, `${keyPrefix}/html`, deps.blobs);
  const attachments = await storeAttachmentList(parsed.attachments, `${keyPrefix}/attachments`, deps.blobs);

  const receivedAt = mail.receivedAt.toISOString();
  const expiresAt = new Date(mail.receivedAt.getTime() + deps.messageTtlSeconds * 1000).toISOString();
  const messages: UndeliveredMessage[] = planned.map(({ email }) => ({
    emailId: email.emailId,
    accountId: email.accountId,
    mailId: mail.mailId,
    from: parsed.from,
    to: parsed.to,
    subject: parsed.subject,
    receivedAt,
    expiresAt,
    sizeBytes,
    text,
    html,
    attachments,
    attachmentCount: parsed.attachments.length,
    rawKey: mail.rawKey,
  }));
  // A live message written by an earlier delivery of the same mail stays as it is (exactly once per address).
  const delivered = await Promise.all(messages.map((message, index) => deliverOnce(message, planned[index]!, deps)));
  const again = delivered.filter(({ outcome }) => outcome === 'exists').length;
  deps.logger.info('mail delivered', { mail_id: mail.mailId, messages: messages.length - again, already_delivered: again, size_bytes: sizeBytes });
  return { messageIds: delivered.map(({ messageId }) => messageId) };
}

/** The renderings done in the caller's own thread: the parser Lambda has nothing else to serve. */
export const inlineHtmlRenderer: HtmlRenderer = { textOf: textOfHtml, sanitize: sanitizeEmailHtml };

/**
 * Parses a raw message as it streams in, storing its attachments under `mail/<mailId>/att/`, and
 * sanitizes its HTML: the part of an ingest that is all processor work. The local intake parses
 * on its main thread and hands a large HTML's renderings to a worker thread (`renderer`); a
 * rendering that fails fails the read, so the mail is not acknowledged. The result's `html` is
 * safe to serve.
 */
export async function readMail(raw: Readable, deps: { blobs: BlobStore; mailId: string; renderer?: HtmlRenderer }): Promise<ParsedMail> {
  const renderer = deps.renderer ?? inlineHtmlRenderer;
  const parsed = await parseMail(raw, { blobs: deps.blobs, keyPrefix: `mail/${deps.mailId}`, textOf: (html) => renderer.textOf(html) });
  return { ...parsed, html: await renderer.sanitize(parsed.html, { idPrefix: idPrefixFor(deps.mailId) }) };
}

/** Reads the raw copy back from the blob store, and reads the mail from it. */
async function readStored(mail: ReceivedMail, blobs: BlobStore): Promise<{ mail: ParsedMail; sizeBytes: number }> {
  const stored = await blobs.get(mail.rawKey);
  if (!stored || stored.notModified) throw new Error(`raw message ${mail.rawKey} is missing`);
  return { mail: await readMail(stored.body, { blobs, mailId: mail.mailId }), sizeBytes: stored.size };
}

/** Deletes the attachments a parse stored, for a mail that becomes no message. */
export async function discardAttachments(parsed: Pick<ParsedMail, 'attachments'>, blobs: BlobStore): Promise<void> {
  for (const attachment of parsed.attachments) await blobs.delete(attachment.blobKey);
}

/** Whether a mail's lifetime has passed before it is ingested: it is dropped, raw object included. */
export function expiredBeforeIngest(mail: Pick<ReceivedMail, 'receivedAt'>, deps: Pick<IngestDeps, 'clock' | 'messageTtlSeconds'>): boolean {
  return mail.receivedAt.getTime() + deps.messageTtlSeconds * 1000 <= deps.clock.now().getTime();
}

async function storeBody(body: string, key: string, blobs: BlobStore): Promise<StoredBody> {
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= inlineBodyMaxBytes) return { inline: body };
  await blobs.put(key, bytes, { contentType: 'text/plain; charset=utf-8' });
  return { blobKey: key, sizeBytes: bytes.length };
}

/**
 * The attachment list on the item when small, in the blob store beside the bodies when large:
 * each entry is bounded, but a mail may hold hundreds of attachments, and one item holds 400 KB.
 */
async function storeAttachmentList(list: AttachmentRecord[], key: string, blobs: BlobStore): Promise<StoredAttachments> {
  const bytes = Buffer.from(JSON.stringify(list), 'utf8');
  if (bytes.length <= inlineAttachmentsMaxBytes) return { inline: list };
  await blobs.put(key, bytes, { contentType: 'application/json' });
  return { blobKey: key, sizeBytes: bytes.length };
}
