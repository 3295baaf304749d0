import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** SES's limit on a received message, which the local intake keeps too (DESIGN: gaps). */
export const maxMessageBytes = 40 * 1024 * 1024;

export interface SmtpIntakeOptions<Accepted> {
  host: string;
  port: number;
  /** Decides on each envelope recipient: resolve to accept (with what was found), reject with an SMTP-coded error. */
  acceptRecipient(address: string): Promise<Accepted>;
  /**
   * Takes an accepted message, with what `acceptRecipient` found for each recipient of this
   * transaction: resolve once it is safely stored (250), reject with an SMTP-coded error.
   */
  receive(message: Readable, recipients: string[], accepted: Accepted[]): Promise<void>;
}

export interface RunningSmtpIntake {
  port: number;
  close(): Promise<void>;
}

/**
 * The local stand-in for SES receiving: an SMTP listener that checks each RCPT TO before it
 * accepts a message, as the SES receipt rule's recipient filter does.
 */
export async function startSmtpIntake<Accepted>(options: SmtpIntakeOptions<Accepted>): Promise<RunningSmtpIntake> {
  // What each transaction's recipients resolved to; smtp-server gives every transaction a new envelope.
  const acceptedOf = new WeakMap<object, Accepted[]>();
  const serverOptions: SMTPServerOptions = {
    name: 'tempmail.local',
    banner: 'tempmail receive-only intake',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: maxMessageBytes,
    logger: false,
    // Nothing here reads the client's reverse DNS name: skip the lookup each connection would wait for.
    disableReverseLookup: true,
    onRcptTo(address, session, callback) {
      options.acceptRecipient(address.address).then(
        (accepted) => {
          const list = acceptedOf.get(session.envelope) ?? [];
          list.push(accepted);
          acceptedOf.set(session.envelope, list);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
    onData(stream, session, callback) {
      const recipients = session.envelope.rcptTo.map((recipient) => recipient.address);
      options.receive(stream, recipients, acceptedOf.get(session.envelope) ?? []).then(
        () => callback(),
        (error: Error) => callback(error),
      );
    },
  };
  const server = new SMTPServer(serverOptions);
  server.listen(options.port, options.host);
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** An error whose `responseCode` smtp-server sends as the reply. */
export function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

/** The refusal of a mail over the size the intake advertises (SES's 40 MB), as both runtimes send it after `DATA`. */
export function messageTooBig(): Error {
  return smtpError(552, '5.3.4 Message too big for this system');
}
