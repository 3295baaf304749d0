import { createHash } from 'node:crypto';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobServices } from '../lambdas/composition/services';
import { parserFunction, recipientFilterFunction } from '../lambdas/function-manifest';
import { MailRefused, PermanentStorageFault, type MailLimitReason } from '../lambdas/core/errors';
import { newMailId } from '../lambdas/core/ids';
import type { EmailRecord } from '../lambdas/core/ports/email-store';
import { activeRecipient, RecipientMemory } from '../lambdas/core/recipients';
import { discardAttachments, ingestMail, readMail } from '../lambdas/mail/ingest-mail';
import type { HtmlRenderer } from '../lambdas/core/ports/html-renderer';
import { mimeLimits } from '../lambdas/mail/parse-mail';
import { rawMailPrefix } from '../lambdas/mail/raw-mail-prefix';
import { runAsIs, type FunctionScope } from './function-scope';
import { maxMessageBytes, messageTooBig, smtpError } from './smtp-intake';

class MessageTooLarge extends Error {}

/**
 * What SES does in AWS, done for the local SMTP intake: RCPT TO for an address that cannot
 * receive is 550; the accepted message is stored raw, then handed to the same ingest as the SES
 * parser. 250 only once everything is written; over the size cap 552; a storage failure 451, so
 * the sender retries and nothing is lost; a write storage refuses for good 554, since a retry of
 * the same mail would fail the same way; a mail past the MIME limits 554 too, rather than a 250
 * for a mail stored in part. `asFunction` names the Lambda function each step stands for;
 * `renderer` renders the HTML (inline when absent; `npm start` passes its rendering thread, so
 * that a large mail leaves the HTTP front answering).
 */
export function smtpDelivery(services: BlobServices, asFunction: FunctionScope = runAsIs, renderer?: HtmlRenderer) {
  // The intake's lookups read an address or a domain once, not with every mail (core/recipients.ts).
  const recipientMemory = new RecipientMemory(services.clock);
  return {
    async acceptRecipient(address: string): Promise<EmailRecord> {
      let found: Awaited<ReturnType<typeof activeRecipient>>;
      try {
        found = await asFunction(recipientFilterFunction.entry, activeRecipient)(address, { ...services, recipientMemory });
      } catch (error) {
        // Not knowing is not "no such mailbox": a permanent 550 would make the sender bounce the mail.
        services.logger.error('recipient not looked up', { error: (error as Error).name });
        throw smtpError(451, '4.3.0 Temporary lookup failure, try again later');
      }
      if (!found) throw smtpError(550, '5.1.1 No such mailbox here');
      return found;
    },

    async receive(message: Readable, recipients: string[], accepted: EmailRecord[]): Promise<void> {
      const receivedAt = services.clock.now();
      const mailId = newMailId(receivedAt);
      // Kept where SES keeps it, so the sweeper treats raw mail alike whichever runtime received it.
      const rawKey = `${rawMailPrefix}${mailId}`;
      const digest = createHash('sha256');
      // The data goes to the raw copy and to the parser at once: the raw copy is not read back.
      const [toRaw, toParser] = tee(message.pipe(sizeLimit(maxMessageBytes, digest)));
      const [raw, parsed] = await Promise.allSettled([
        services.blobs.put(rawKey, toRaw, { contentType: 'message/rfc822' }),
        asFunction(parserFunction.entry, readMail)(toParser, { blobs: services.blobs, mailId, renderer }),
      ]);
      if (raw.status === 'rejected') {
        const error = raw.reason as Error;
        await drain(message);
        await services.blobs.delete(rawKey).catch(() => undefined);
        if (parsed.status === 'fulfilled') await discardAttachments(parsed.value, services.blobs).catch(() => undefined);
        if (error instanceof MessageTooLarge) throw messageTooBig();
        services.logger.error('raw message not stored', { mail_id: mailId, error: error.name });
        throw smtpError(451, '4.3.0 Temporary storage failure, try again later');
      }
      try {
        // The same bytes sent again (a sender's retry after 451) are the same mail: one message per address.
        const identity = `sha256:${digest.digest('hex')}`;
        // The recipients were looked up at RCPT TO moments ago: ingest only checks they are still active.
        // An attachment the parser could not store fails the ingest like any storage call (451).
        if (parsed.status === 'rejected') throw parsed.reason;
        const mail = { mailId, rawKey, recipients, receivedAt, identity, refusable: true, knownRecipients: accepted };
        await asFunction(parserFunction.entry, ingestMail)(
          { ...mail, parsed: { mail: parsed.value, sizeBytes: raw.value.size } },
          { ...services, recipientMemory },
        );
      } catch (error) {
        if (error instanceof MailRefused) {
          services.logger.warn('mail refused for good', { mail_id: mailId, reason: error.reason });
          throw refusalReplies[error.reason]();
        }
        if (error instanceof PermanentStorageFault) {
          services.logger.error('mail refused for good', { mail_id: mailId, reason: error.reason });
          throw smtpError(554, '5.3.4 Message cannot be stored by this system; do not retry');
        }
        services.logger.error('mail not ingested', { mail_id: mailId, error: (error as Error).name });
        throw smtpError(451, '4.3.0 Temporary failure, try again later');
      }
    },
  };
}

/** The reply to a mail past one of the parser's limits: each limit its own accurate reason. */
const refusalReplies: Record<MailLimitReason, () => Error> = {
  mime_limit: () =>
    smtpError(
      554,
      `5.3.4 Message has more than ${mimeLimits.attachments.toLocaleString('en')} attachments or ` +
        `${mimeLimits.parts.toLocaleString('en')} MIME parts; not delivered`,
    ),
  header_limit: () => smtpError(552, `5.3.4 Message header block larger than ${mimeLimits.headerBytes / 1024 / 1024} MiB; not delivered`),
};

/** Fails the stream once more than `max` bytes have passed; hashes what passes. */
function sizeLimit(max: number, digest: ReturnType<typeof createHash>): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      digest.update(chunk);
      done(seen > max ? new MessageTooLarge() : null, chunk);
    },
  });
}

/**
 * The stream as two, each carrying every byte, at the pace of the slower (the raw copy's write and
 * the parser's attachment writes). A branch closed early (a parser stopped at a limit) is let go
 * and the other goes on; a failure of the source (the size cap) ends both with it.
 */
function tee(source: Readable): [Readable, Readable] {
  const branches: [PassThrough, PassThrough] = [new PassThrough(), new PassThrough()];
  for (const branch of branches) source.pipe(branch);
  source.once('error', (error) => {
    for (const branch of branches) branch.destroy(error);
  });
  return branches;
}

/** Reads what is left of the SMTP data so the session can answer and go on. */
async function drain(message: Readable): Promise<void> {
  if (message.readableEnded) return;
  await pipeline(message, new Transform({ transform: (_chunk, _encoding, done) => done() })).catch(() => undefined);
}
