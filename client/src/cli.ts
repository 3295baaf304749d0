#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { TempmailClient } from './client';
import { closest, parseArgs, parseDuration, printable, UsageError, type ParsedArgs } from './cli-args';
import { TempmailError, WaitTimeoutError } from './errors';
import { extractCode, extractLink } from './extract';
import { asAttachmentId, asEmailId, asMessageId, type EmailId, type FileBody, type Message, type MessageListItem } from './types';
import { worstCaseRequests } from './wait-for-message';

/** Exit statuses: documented in client/README.md, docs/end-to-end-testing.md and `tempmail --help`. */
export const exitCodes = { ok: 0, error: 1, timedOut: 2, usage: 64 } as const;

/** The options each command accepts (besides --json, --help and --version). */
const commandOptions: Record<string, string[]> = {
  'inbox create': ['local-part', 'domain', 'format'],
  'inbox show': [],
  'messages list': [],
  'messages wait': ['timeout', 'max-requests', 'stop-at-budget', 'subject', 'from', 'to', 'body', 'since', 'extract'],
  'message show': [],
  'message source': ['out', 'raw'],
  'message attachment': ['out', 'raw'],
  domains: [],
  usage: [],
};
const commands = Object.keys(commandOptions);

const help = `tempmail: the tempmail API from the command line

  tempmail inbox create [--local-part X] [--domain D] [--format env]
  tempmail inbox show EMAIL_ID
  tempmail messages list EMAIL_ID
  tempmail messages wait EMAIL_ID [--timeout 60s] [--max-requests N [--stop-at-budget]] [--since now|ISO|MESSAGE_ID]
                         [--subject RE] [--from RE] [--to RE] [--body RE] [--extract code|link]
  tempmail message show MESSAGE_ID
  tempmail message source MESSAGE_ID [--out FILE | --raw]
  tempmail message attachment MESSAGE_ID ATTACHMENT_ID [--out FILE | --raw]
  tempmail domains
  tempmail usage
  tempmail help | --help | -h        tempmail --version | -V

Environment: TEMPMAIL_API_KEY (required), TEMPMAIL_BASE_URL (default http://127.0.0.1:3000).
--json prints the API's data as JSON for scripts. Every call but usage is a charged request;
a wait polls (a 30-second wait that finds nothing costs 9 requests, a 60-second one 15); a wait
whose worst case exceeds --max-requests is refused before any request, unless --stop-at-budget
lets the budget end it early.
Text printed to a terminal has its control characters removed; raw bytes go to a terminal
only with --raw (or to a file with --out, or to a pipe).
Exit status: 0 done (message found), 1 API or network error, 2 wait timed out (deadline or
request budget), 64 usage error (bad command, option or value).
`;

function version(): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('../package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

interface Io {
  out: (text: string) => void;
  err: NodeJS.WriteStream;
}

/** Runs one command line; resolves with the exit status. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = { out: (text) => process.stdout.write(text), err: process.stderr }): Promise<number> {
  const json = argv.includes('--json');
  const report = (kind: string, message: string, extra: object = {}) =>
    io.err.write(json ? `${JSON.stringify({ error: { kind, message: printable(message), ...extra } })}\n` : `tempmail: ${printable(message)}\n`);
  let args: ParsedArgs;
  try {
    const words = argv.filter((arg) => !arg.startsWith('-'));
    const command = commands.find((name) => name === words.slice(0, name.split(' ').length).join(' '));
    args = parseArgs(argv, new Set(['json', 'help', 'version', ...(command ? commandOptions[command]! : [])]));
    if (args.options.has('version')) {
      io.out(`${version()}\n`);
      return exitCodes.ok;
    }
    if (args.options.has('help') || args.words[0] === 'help') {
      io.out(help);
      return exitCodes.ok;
    }
    if (args.words.length === 0) {
      io.err.write(help);
      return exitCodes.usage;
    }
    if (!command) {
      const near = closest(args.words.slice(0, 2).join(' '), commands) ?? closest(args.words[0]!, commands);
      throw new UsageError(`unknown command: ${args.words.join(' ')}${near ? ` (did you mean ${near}?)` : ''}`);
    }
    if (!env.TEMPMAIL_API_KEY) throw new UsageError('TEMPMAIL_API_KEY is not set');
    let client: TempmailClient;
    try {
      client = new TempmailClient({ apiKey: env.TEMPMAIL_API_KEY, baseUrl: env.TEMPMAIL_BASE_URL || undefined });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    return await run(client, args, io);
  } catch (error) {
    if (error instanceof WaitTimeoutError) {
      report('timeout', error.message, { reason: error.reason, requests: error.requests, ...error.report });
      return exitCodes.timedOut;
    }
    if (error instanceof UsageError) {
      report('usage', `${error.message}${json ? '' : ' (tempmail --help lists the commands)'}`);
      return exitCodes.usage;
    }
    if (error instanceof TempmailError) {
      const details = error.details.map((detail) => `\n  ${detail.field ?? ''}: ${detail.reason}`).join('');
      report('api', `${error.status} ${error.code}: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}${json ? '' : details}`, { status: error.status, code: error.code, request_id: error.requestId, details: error.details });
    } else {
      report('error', String((error as Error)?.message ?? error));
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
  /** An id argument, checked before any request: a malformed one is a usage error. */
  const id = <T>(convert: (value: string) => T, index: number, name: string): T => {
    try {
      return convert(arg(index, name));
    } catch (error) {
      if (error instanceof TypeError) fail(`${name}: ${error.message}`);
      throw error;
    }
  };
  const print = (data: unknown, human: string) => io.out(json ? `${jsonText(data)}\n` : `${printable(human)}\n`);
  const command = words.slice(0, 2).join(' ');

  switch (words[0] === 'domains' || words[0] === 'usage' ? words[0] : command) {
    case 'inbox create': {
      const format = option('format');
      if (format !== undefined && format !== 'env') fail('--format takes env');
      const email = await client.createEmail({ local_part: option('local-part'), domain: option('domain') });
      if (format === 'env') io.out(`TEMPMAIL_ID=${email.id}\nTEMPMAIL_ADDRESS=${printable(email.address)}\n`);
      else print(email, `${email.address}\nid: ${email.id}\nexpires: ${email.expires_at}`);
      return exitCodes.ok;
    }
    case 'inbox show': {
      const email = await client.getEmail(id(asEmailId, 2, 'EMAIL_ID'));
      print(email, `${email.address}\nid: ${email.id}\nstatus: ${email.status}\ncreated: ${email.created_at}\nexpires: ${email.expires_at}`);
      return exitCodes.ok;
    }
    case 'messages list': {
      const items: MessageListItem[] = [];
      for await (const item of client.messages(id(asEmailId, 2, 'EMAIL_ID'), { limit: 100 })) items.push(item);
      print(items, items.length ? items.map((m) => `${m.id}  ${m.received_at}  ${m.from}  ${m.subject}`).join('\n') : '(no messages)');
      return exitCodes.ok;
    }
    case 'messages wait': {
      const extract = option('extract');
      if (extract !== undefined && extract !== 'code' && extract !== 'link') fail('--extract takes code or link');
      const timeoutMs = parseDuration(option('timeout') ?? '60s');
      const budget = option('max-requests');
      if (budget !== undefined && !/^[1-9]\d{0,5}$/.test(budget)) fail(`--max-requests takes a whole number from 1, got ${budget}`);
      const maxRequests = budget === undefined ? undefined : Number(budget);
      const stopAtBudget = options.has('stop-at-budget');
      // Refused before --since now takes its mark (itself a charged request).
      const worst = worstCaseRequests({ timeoutMs });
      if (maxRequests !== undefined && !stopAtBudget && worst > maxRequests) fail(`--max-requests ${maxRequests} is below this wait's worst case of ${worst} requests (--timeout ${option('timeout') ?? '60s'}); give a shorter --timeout, or --stop-at-budget to let the budget end the wait early`);
      const regex = (name: string) => {
        const source = option(name);
        if (source === undefined) return undefined;
        try {
          return new RegExp(source, 'i');
        } catch (error) {
          return fail(`--${name}: ${(error as Error).message}`);
        }
      };
      const emailId = id(asEmailId, 2, 'EMAIL_ID');
      const match = { subject: regex('subject'), from: regex('from'), to: regex('to'), body: regex('body') };
      const since = option('since');
      const after = since === undefined ? {} : await sinceOf(client, emailId, since);
      const stop = spinner(io.err, client.now);
      let message: Message;
      let requests = 0;
      try {
        message = await client.waitForMessage(emailId, { timeoutMs, maxRequests, stopAtBudget, match, ...after, onSpent: (spent) => (requests = spent) });
      } finally {
        stop();
      }
      if (extract) {
        const value = extract === 'code' ? extractCode(message) : extractLink(message);
        if (value === undefined) throw new Error(`the message ${message.id} (${JSON.stringify(message.subject)}) holds no ${extract}`);
        // With --json, what the wait cost beside what it found (each poll is a charged request).
        print({ [extract]: value, message_id: message.id, requests }, value);
      } else {
        print(message, messageText(message));
      }
      return exitCodes.ok;
    }
    case 'message show': {
      const message = await client.getMessage(id(asMessageId, 2, 'MESSAGE_ID'));
      print(message, messageText(message));
      return exitCodes.ok;
    }
    case 'message source':
    case 'message attachment': {
      const out = option('out');
      if (!out && !options.has('raw') && process.stdout.isTTY) fail('refusing to write raw mail bytes to a terminal: give --out FILE, pipe the output, or pass --raw');
      const file = command === 'message source' ? await client.getMessageSource(id(asMessageId, 2, 'MESSAGE_ID')) : await client.getAttachment(id(asMessageId, 2, 'MESSAGE_ID'), id(asAttachmentId, 3, 'ATTACHMENT_ID'));
      save(file, out, io);
      return exitCodes.ok;
    }
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

/** `--since`: `now` (a mark taken now), an ISO instant (compared with the server's received_at) or a message id (a mark holding it and all before it). */
async function sinceOf(client: TempmailClient, emailId: EmailId, since: string) {
  if (since === 'now') return { after: await client.mark(emailId) };
  if (/^msg_/.test(since)) {
    let messageId;
    try {
      messageId = asMessageId(since);
    } catch (error) {
      return fail(`--since: ${(error as Error).message}`);
    }
    const message = await client.getMessage(messageId);
    return { after: { emailId, ids: [message.id], newestReceivedAt: message.received_at } };
  }
  const instant = new Date(since);
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(instant.getTime())) fail(`--since takes now, an ISO date-time or a message id, got ${since}`);
  return { since: instant };
}

/** JSON with every control character escaped (JSON.stringify leaves DEL and C1 as they are). */
function jsonText(data: unknown): string {
  return JSON.stringify(data, null, 2).replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
