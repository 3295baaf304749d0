#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { TempmailClient } from './client';
import { parseArgs, parseDuration, UsageError, type ParsedArgs } from './cli-args';
import { TempmailError, WaitTimeoutError } from './errors';
import { extractCode, extractLink } from './extract';
import type { FileBody, Message, MessageListItem } from './types';

/** Exit statuses: documented in docs/end-to-end-testing.md and in `tempmail --help`. */
export const exitCodes = { ok: 0, error: 1, timedOut: 2 } as const;

const help = `tempmail: the tempmail API from the command line

  tempmail inbox create [--local-part X] [--domain D]
  tempmail inbox show EMAIL_ID
  tempmail messages list EMAIL_ID
  tempmail messages wait EMAIL_ID [--timeout 60s] [--subject RE] [--from RE] [--extract code|link]
  tempmail message show MESSAGE_ID
  tempmail message source MESSAGE_ID [--out FILE]
  tempmail message attachment MESSAGE_ID ATTACHMENT_ID [--out FILE]
  tempmail domains
  tempmail usage

Environment: TEMPMAIL_API_KEY (required), TEMPMAIL_BASE_URL (default http://127.0.0.1:3000).
--json prints the API's data as JSON for scripts. Every call but usage is a charged request;
a wait polls (a 30-second wait that finds nothing costs 10 requests).
Exit status: 0 done (message found), 1 error, 2 wait timed out.
`;

interface Io {
  out: (text: string) => void;
  err: NodeJS.WriteStream;
}

/** Runs one command line; resolves with the exit status. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = { out: (text) => process.stdout.write(text), err: process.stderr }): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
    if (args.options.has('help') || args.words.length === 0) {
      io.out(help);
      return args.words.length === 0 && !args.options.has('help') ? exitCodes.error : exitCodes.ok;
    }
    if (!env.TEMPMAIL_API_KEY) throw new UsageError('TEMPMAIL_API_KEY is not set');
    const client = new TempmailClient({ apiKey: env.TEMPMAIL_API_KEY, baseUrl: env.TEMPMAIL_BASE_URL || 'http://127.0.0.1:3000' });
    return await run(client, args, io);
  } catch (error) {
    if (error instanceof WaitTimeoutError) {
      io.err.write(`tempmail: ${error.message}\n`);
      return exitCodes.timedOut;
    }
    if (error instanceof TempmailError) {
      io.err.write(`tempmail: ${error.status} ${error.code}: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}\n`);
      for (const detail of error.details) io.err.write(`  ${detail.field ?? ''}: ${detail.reason}\n`);
    } else if (error instanceof UsageError) {
      io.err.write(`tempmail: ${error.message}\n\n${help}`);
    } else {
      io.err.write(`tempmail: ${(error as Error)?.message ?? error}\n`);
    }
    return exitCodes.error;
  }
}

async function run(client: TempmailClient, { words, options }: ParsedArgs, io: Io): Promise<number> {
  const json = options.has('json');
  const option = (name: string) => {
    const value = options.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  const arg = (index: number, name: string) => words[index] ?? fail(`missing ${name}`);
  const print = (data: unknown, human: string) => io.out(json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
  const command = words.slice(0, 2).join(' ');

  switch (words[0] === 'domains' || words[0] === 'usage' ? words[0] : command) {
    case 'inbox create': {
      const email = await client.createEmail({ local_part: option('local-part'), domain: option('domain') });
      print(email, `${email.address}\nid: ${email.id}\nexpires: ${email.expires_at}`);
      return exitCodes.ok;
    }
    case 'inbox show': {
      const email = await client.getEmail(arg(2, 'EMAIL_ID'));
      print(email, `${email.address}\nid: ${email.id}\nstatus: ${email.status}\ncreated: ${email.created_at}\nexpires: ${email.expires_at}`);
      return exitCodes.ok;
    }
    case 'messages list': {
      const items: MessageListItem[] = [];
      for await (const item of client.messages(arg(2, 'EMAIL_ID'), { limit: 100 })) items.push(item);
      print(items, items.length ? items.map((m) => `${m.id}  ${m.received_at}  ${m.from}  ${m.subject}`).join('\n') : '(no messages)');
      return exitCodes.ok;
    }
    case 'messages wait': {
      const extract = option('extract');
      if (extract !== undefined && extract !== 'code' && extract !== 'link') fail('--extract takes code or link');
      const timeoutMs = parseDuration(option('timeout') ?? '60s');
      const regex = (name: string) => (option(name) === undefined ? undefined : new RegExp(option(name)!, 'i'));
      const stop = spinner(io.err, client.now);
      let message: Message;
      try {
        message = await client.waitForMessage(arg(2, 'EMAIL_ID'), { timeoutMs, match: { subject: regex('subject'), from: regex('from') } });
      } finally {
        stop();
      }
      if (extract) {
        const value = extract === 'code' ? extractCode(message) : extractLink(message);
        if (value === undefined) throw new Error(`the message ${message.id} (${JSON.stringify(message.subject)}) holds no ${extract}`);
        print({ [extract]: value, message_id: message.id }, value);
      } else {
        print(message, messageText(message));
      }
      return exitCodes.ok;
    }
    case 'message show': {
      const message = await client.getMessage(arg(2, 'MESSAGE_ID'));
      print(message, messageText(message));
      return exitCodes.ok;
    }
    case 'message source':
      save(await client.getMessageSource(arg(2, 'MESSAGE_ID')), option('out'), io);
      return exitCodes.ok;
    case 'message attachment':
      save(await client.getAttachment(arg(2, 'MESSAGE_ID'), arg(3, 'ATTACHMENT_ID')), option('out'), io);
      return exitCodes.ok;
    case 'domains': {
      const domains = [];
      for await (const domain of client.domains({ limit: 100 })) domains.push(domain);
      print(domains, domains.map((d) => `${d.domain}${d.create_enabled ? '' : ' (no new addresses)'}${d.receive_enabled ? '' : ' (not receiving)'}`).join('\n'));
      return exitCodes.ok;
    }
    case 'usage': {
      const usage = await client.getUsage();
      print(usage, `plan: ${usage.plan} (${usage.allowance_mode})\nused: ${usage.used_requests}\nremaining: ${usage.remaining_requests}\nadditional: ${usage.additional_requests}`);
      return exitCodes.ok;
    }
    default:
      return fail(`unknown command: ${words.join(' ')}`);
  }
}

function messageText(message: Message): string {
  const attachments = message.attachments.map((a) => `  ${a.id}  ${a.filename}  ${a.content_type}  ${a.size_bytes} bytes`);
  return [
    `id: ${message.id}`,
    `from: ${message.from}`,
    `to: ${message.to.join(', ')}`,
    `subject: ${message.subject}`,
    `received: ${message.received_at}`,
    ...(attachments.length ? ['attachments:', ...attachments] : []),
    '',
    message.text,
  ].join('\n');
}

function save(file: FileBody, out: string | undefined, io: Io): void {
  if (out) {
    writeFileSync(out, file.bytes);
    io.err.write(`saved ${file.bytes.length} bytes to ${out}\n`);
  } else {
    process.stdout.write(file.bytes);
  }
}

/** An elapsed-time spinner on stderr, only when stderr is a terminal; returns its stop. */
function spinner(stream: NodeJS.WriteStream, now: () => number): () => void {
  if (!stream.isTTY) return () => {};
  const frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
  const start = now();
  let frame = 0;
  const timer = setInterval(() => {
    stream.write(`\r${frames[frame++ % frames.length]} waiting for mail… ${((now() - start) / 1000).toFixed(0)}s`);
  }, 100);
  return () => {
    clearInterval(timer);
    stream.write('\r\x1b[K');
  };
}

function fail(message: string): never {
  throw new UsageError(message);
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
