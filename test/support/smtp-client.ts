import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';

/** Sends one mail to the local intake with nodemailer, as any sender would; resolves with the reply. */
export async function sendMail(port: number, mail: Mail.Options): Promise<{ response: string }> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    return await transport.sendMail(mail);
  } finally {
    transport.close();
  }
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
