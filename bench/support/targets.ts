import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScriptForJson } from './run-script';

const projectRoot = join(__dirname, '..', '..');

/** A mail service under measurement: where to send mail, and how its API lists what arrived. */
export interface IngestTarget {
  name: string;
  smtpPort: number;
  /** The process that receives the mail, whose CPU time the bench reads. */
  pid?: number;
  /** Starts a round: a fresh recipient whose listing is empty. */
  newRound(): Promise<string>;
  /** Every subject the API lists for the round's recipient, paging 100 at a time. */
  listSubjects(): Promise<string[]>;
  stop(): Promise<void>;
}

/** Our service as `npm start` runs it, on a data directory of its own, with a paid account. */
export interface OurService extends IngestTarget {
  apiUrl: string;
  apiKey: string;
  dataDir: string;
  /** POST /v1/emails with a fresh Idempotency-Key; the email's id and address. */
  createEmail(): Promise<{ id: string; address: string }>;
  /** Fetch against the API with the bench account's key. */
  request(path: string, init?: RequestInit): Promise<Response>;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function waitForLine(child: ChildProcess, pattern: RegExp, withinMs: number): Promise<RegExpExecArray> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within ${withinMs} ms:\n${output}`)), withinMs);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before ready:\n${output}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** The operator CLI, answering one JSON object. */
const runAdmin = (args: string[], env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> => runScriptForJson('cli/admin.ts', args, env);

/**
 * Starts our service the way `npm start` does (its entry, on disk, default log level), with the
 * short window raised so that a load test measures served requests, not 429s, and a paid account
 * granted enough requests for the whole run.
 */
export async function startOurService(options: { nodeArgs?: string[] } = {}): Promise<OurService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tempmail-bench-data-'));
  const env = {
    ...process.env,
    PORT: '0',
    SMTP_PORT: '0',
    DATA_DIR: dataDir,
    TEMPMAIL_SHORT_WINDOW_PER_KEY: '100000000',
    TEMPMAIL_SHORT_WINDOW_PER_ACCOUNT: '100000000',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'local/main.ts'], { cwd: projectRoot, env });
  const ready = await waitForLine(child, /ready: api (http:\/\/\S+) smtp smtp:\/\/[^:\s]+:(\d+)/, 30_000);
  const apiUrl = ready[1]!;
  const account = await runAdmin(['account', 'create', '--plan', 'paid'], env);
  await runAdmin(['allowance', 'grant', '--account', String(account.account_id), '--requests', '100000000'], env);
  const apiKey = String(account.api_key);
  const request = (path: string, init: RequestInit = {}) =>
    fetch(`${apiUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${apiKey}`, ...init.headers } });
  const createEmail = async () => {
    const response = await request('/v1/emails', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `bench-${randomUUID()}` },
      body: '{}',
    });
    if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
    const { data } = (await response.json()) as { data: { id: string; address: string } };
    return data;
  };
  let emailId = '';
  return {
    name: 'tempmail',
    smtpPort: Number(ready[2]),
    ...(child.pid === undefined ? {} : { pid: child.pid }),
    apiUrl,
    apiKey,
    dataDir,
    request,
    createEmail,
    newRound: async () => {
      const email = await createEmail();
      emailId = email.id;
      return email.address;
    },
    listSubjects: async () => {
      const subjects: string[] = [];
      let cursor: string | undefined;
      do {
        const query = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const response = await request(`/v1/emails/${emailId}/messages?${query}`);
        if (response.status !== 200) throw new Error(`listing answered ${response.status}`);
        const page = (await response.json()) as { data: { subject: string }[]; pagination: { has_more: boolean; next_cursor?: string } };
        for (const item of page.data) subjects.push(item.subject);
        cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
      } while (cursor);
      return subjects;
    },
    stop: async () => {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** MailDev, the local mail catcher of reference, persisting mail to a directory of its own. */
export async function startMailDev(): Promise<IngestTarget> {
  const mailDir = mkdtempSync(join(tmpdir(), 'tempmail-bench-maildev-'));
  const [smtpPort, webPort] = [await freePort(), await freePort()];
  const bin = join(projectRoot, 'node_modules', 'maildev', 'dist', 'bin', 'maildev.js');
  const child = spawn(
    process.execPath,
    [bin, '--smtp', String(smtpPort), '--web', String(webPort), '--ip', '127.0.0.1', '--web-ip', '127.0.0.1', '--mail-directory', mailDir],
    { cwd: mailDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const api = `http://127.0.0.1:${webPort}/api`;
  for (let attempt = 0; ; attempt++) {
    const healthy = await fetch(`${api}/healthz`).then((response) => response.ok, () => false);
    if (healthy) break;
    if (attempt > 200 || child.exitCode !== null) throw new Error('MailDev did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let recipient = '';
  return {
    name: 'MailDev 3',
    smtpPort,
    ...(child.pid === undefined ? {} : { pid: child.pid }),
    newRound: async () => {
      const response = await fetch(`${api}/email/all`, { method: 'DELETE' });
      if (!response.ok) throw new Error(`MailDev delete answered ${response.status}`);
      recipient = `bench-${randomUUID().slice(0, 8)}@maildev.localhost`;
      return recipient;
    },
    listSubjects: async () => {
      const subjects: string[] = [];
      for (let skip = 0; ; skip += 100) {
        const response = await fetch(`${api}/email/summary?limit=100&skip=${skip}&sort=asc`);
        const page = (await response.json()) as { items: { subject: string }[]; total: number };
        for (const item of page.items) subjects.push(item.subject);
        if (skip + 100 >= page.total) return subjects;
      }
    },
    stop: async () => {
      await stopChild(child);
      rmSync(mailDir, { recursive: true, force: true });
    },
  };
}
