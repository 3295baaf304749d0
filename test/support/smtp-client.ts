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
