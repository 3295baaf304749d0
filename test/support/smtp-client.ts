import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

/** Sends one mail to the local intake with nodemailer, as any sender would; resolves with the reply. */
export async function sendMail(port: number, mail: Mail.Options): Promise<{ response: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail(mail);
  } finally {
    transport.close();
  }
}

export interface SmtpSession {
  /** One transaction (MAIL, RCPT, DATA) on the session's connection; resolves with the reply, rejects with the refusal. */
  send(mail: Mail.Options): Promise<{ response: string }>;
  close(): void;
}

/**
 * One SMTP session for many mails, as a relay delivering its queue uses one connection: each
 * `send` is a transaction on it, composed and spoken by nodemailer. Every new connection waits
 * for the intake's greeting, which smtp-server holds back 100 ms to catch clients that talk too
 * soon; a test that sends mails one after another sends them here, not one connection each.
 */
export async function smtpSession(port: number): Promise<SmtpSession> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  let broken: Error | undefined;
  connection.on('error', (error: Error) => (broken ??= error));
  await new Promise<void>((resolve, reject) => connection.connect((error) => (error ? reject(error) : resolve())));
  const transaction = (envelope: SMTPConnection.Envelope, raw: Buffer) =>
    new Promise<{ response: string }>((resolve, reject) => connection.send(envelope, raw, (error, info) => (error ? reject(error) : resolve(info))));
  return {
    async send(mail) {
      if (broken) throw broken;
      const message = new MailComposer(mail).compile();
      const raw = await message.build();
      try {
        return await transaction(message.getEnvelope() as SMTPConnection.Envelope, raw);
      } catch (error) {
        // A refused transaction leaves the session open: RSET, so that the next one starts clean.
        if (!broken) await new Promise<void>((resolve) => connection.reset(() => resolve()));
        throw error;
      }
    },
    close: () => connection.quit(),
  };
}

/** Sends raw bytes with an explicit envelope: what the source endpoint must return byte for byte. */
export function sendRaw(port: number, envelope: { from: string; to: string[] }, raw: Buffer | string) {
  return sendMail(port, { envelope, raw });
}

/** The SMTP reply code of a refused send. */
export async function refusalCode(sending: Promise<unknown>): Promise<number | undefined> {
  try {
    await sending;
    return undefined;
  } catch (error) {
    return (error as { responseCode?: number }).responseCode;
  }
}

/**
 * One SMTP session spoken line by line, for tests that act between two commands of a
 * transaction: `say(line)` sends a command (or nothing, for the greeting) and resolves with its
 * final reply line.
 */
export function smtpDialogue(port: number): { say(line?: string): Promise<string>; close(): void } {
  const socket = connect(port, '127.0.0.1');
  const replies = createInterface({ input: socket })[Symbol.asyncIterator]();
  return {
    async say(line) {
      if (line !== undefined) socket.write(`${line}\r\n`);
      for (;;) {
        const reply = String((await replies.next()).value);
        if (reply[3] !== '-') return reply;
      }
    },
    close: () => socket.destroy(),
  };
}
