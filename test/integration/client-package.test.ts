import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { chromiumPath } from '../support/chromium';
import { startLoopbackOrigin, type LoopbackOrigin } from '../support/loopback-origin';
import { realClockEnvironment } from '../support/real-clock';
import { packedClient } from '../support/packed-client';
import { readmeBlock } from '../support/readme';
import { runAdminCommand, spawnStartCommand, type SpawnedService } from '../support/spawn-service';

/**
 * What a user installs is what is tested: the client package is built and packed with `npm pack`
 * (once a run, shared with the CLI's suite), the tarball is installed (offline) into a fresh
 * project, and the README's first test and the Playwright example of docs/end-to-end-testing.md
 * run there against `npm start` (its command, without npm): the SDK one with `node --test`, the
 * Playwright-fixture one with `npx playwright test` (Debian's Chromium; no browser download).
 * `@playwright/test` and nodemailer, the user's own dev dependencies, are linked from this
 * project's node_modules.
 */
const projectRoot = join(__dirname, '..', '..');

let service: SpawnedService;
let work: string;
let app: string;
let env: Record<string, string>;
let playwrightReport: string | undefined;

interface PlaywrightSpec {
  title: string;
  tests: { results: { status: string; attachments: { name: string; body?: string; path?: string }[] }[] }[];
}
interface PlaywrightSuite {
  specs?: PlaywrightSpec[];
  suites?: PlaywrightSuite[];
}

/** A fixture test that fails on purpose after a wait returned a long mail, with a second mail no wait took. */
const FAILING_SPEC = `import { test, expect } from '@tempmail/client/playwright';
import nodemailer from 'nodemailer';

const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: Number(process.env.SMTP_PORT) });
test.afterAll(() => smtp.close());

test('fails after its wait', async ({ inbox }) => {
  test.fail();
  const from = 'Acme <no-reply@acme.example>';
  const text = 'Your code is 271828, or follow https://app.example/confirm?token=abc\\n' + 'padding '.repeat(400);
  await smtp.sendMail({ from, to: inbox.address, subject: 'Confirm your sign-up', text });
  expect(await inbox.waitForCode({ subject: /confirm/i })).toBe('271828');
  await smtp.sendMail({ from, to: inbox.address, subject: 'Welcome', text: 'Hello' });
  await expect(inbox).toHaveReceived({ subject: 'Welcome' });
  expect('the page').toBe('what the test wanted');
});
`;

async function run(command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}, options: { realClock?: boolean } = {}) {
  // The user's own shell: nothing of this Jest run (Playwright refuses to run under Jest's worker variables).
  const outside = Object.fromEntries(Object.entries(options.realClock ? realClockEnvironment() : process.env).filter(([name]) => !name.startsWith('JEST_')));
  const child = spawn(command, args, { cwd, env: { ...outside, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', ...env, ...extraEnv } });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number, output };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tempmail-package-'));
  const dataDir = join(work, 'data');
  app = join(work, 'app');
  await mkdir(app);
  await mkdir(dataDir);
  env = {};

  // Packed once a run, with the CLI's suite (support/packed-client.ts).
  const { tarball } = await packedClient();
  expect(basename(tarball)).toMatch(/^tempmail-client-\d+\.\d+\.\d+\.tgz$/);

  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'signup-e2e', private: true, version: '1.0.0' }));
  const installed = await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], app);
  expect(installed).toMatchObject({ code: 0 });
  for (const name of ['@playwright/test', 'playwright', 'playwright-core', 'nodemailer']) {
    await mkdir(join(app, 'node_modules', name, '..'), { recursive: true });
    await symlink(join(projectRoot, 'node_modules', name), join(app, 'node_modules', name), 'dir');
  }
  await symlink('../@playwright/test/cli.js', join(app, 'node_modules', '.bin', 'playwright'));

  await writeFile(join(app, 'signup.test.mjs'), readmeBlock('<!-- e2e-example: signup.test.mjs'));
  await writeFile(join(app, 'signup.spec.ts'), readmeBlock('<!-- e2e-example: signup.spec.ts', 'docs/end-to-end-testing.md'));
  await writeFile(join(app, 'playwright.config.ts'), readmeBlock('<!-- e2e-example: playwright.config.ts', 'docs/end-to-end-testing.md'));
  await writeFile(join(app, 'failure.spec.ts'), FAILING_SPEC);

  service = await spawnStartCommand({ DATA_DIR: dataDir });
  const account = await runAdminCommand(['account', 'create', '--plan', 'paid'], { DATA_DIR: dataDir });
  env = { TEMPMAIL_API_KEY: JSON.parse(account.stdout).api_key, TEMPMAIL_BASE_URL: service.apiUrl, SMTP_PORT: String(service.smtpPort) };
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('the packed client package, installed into a fresh project', () => {
  it('ships its built output, types and bin, and no runtime dependency', async () => {
    const manifest = JSON.parse(await readFile(join(app, 'node_modules', '@tempmail', 'client', 'package.json'), 'utf8'));
    expect(manifest.dependencies).toBeUndefined();
    const files = await readdir(join(app, 'node_modules', '@tempmail', 'client', 'dist'));
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'index.mjs', 'index.d.mts', 'playwright.js', 'playwright.d.ts', 'playwright.mjs', 'playwright.d.mts', 'cli.js']));
    expect(manifest.sideEffects).toBe(false);
    const usage = await run(join(app, 'node_modules', '.bin', 'tempmail'), ['usage', '--json'], app);
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.output)).toMatchObject({ plan: 'paid' });
  });

  it.each([
    [
      'an ES module',
      'smoke.mjs',
      `import { TempmailClient, TempmailError, isNotFound } from '@tempmail/client';
import { test } from '@tempmail/client/playwright';
import { createRequire } from 'node:module';
const required = createRequire(import.meta.url)('@tempmail/client');`,
    ],
    [
      'a CommonJS module',
      'smoke.cjs',
      `const { TempmailClient, TempmailError, isNotFound } = require('@tempmail/client');
const { test } = require('@tempmail/client/playwright');
const required = require('@tempmail/client');`,
    ],
  ])('loads as %s, with the one copy of each class, and answers through the service', async (_kind, file, imports) => {
    await writeFile(
      join(app, file),
      `${imports}
(async () => {
  const tempmail = new TempmailClient();
  const usage = await tempmail.getUsage();
  const missing = await tempmail.getEmail('eml_0000000000000000').catch((error) => error);
  process.stdout.write(JSON.stringify({ plan: usage.plan, notFound: isNotFound(missing), oneCopy: required.TempmailError === TempmailError && missing instanceof required.TempmailError, fixture: typeof test.extend }));
})();
`,
    );
    const result = await run(process.execPath, [file], app);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.output)).toEqual({ plan: 'paid', notFound: true, oneCopy: true, fixture: 'function' });
  });

  it("runs the README's SDK example with node --test", async () => {
    const result = await run(process.execPath, ['--test', 'signup.test.mjs'], app);
    expect(result.output).toMatch(/# pass 1\n# fail 0/);
    expect(result.code).toBe(0);
  }, 60_000);

  it("runs the Playwright-fixture example of docs/end-to-end-testing.md with npx playwright test", async () => {
    // The runner and its Chromium keep the real clock (Chromium crawls under libfaketime); the service's may be shifted.
    // The same run holds a test that fails on purpose (marked `test.fail()`), whose report the next case reads.
    const reportFile = join(work, 'playwright-report.json');
    const result = await run('npx', ['playwright', 'test', '--reporter=line,json'], app, { CHROMIUM_PATH: chromiumPath, PLAYWRIGHT_JSON_OUTPUT_FILE: reportFile, PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile }, { realClock: true });
    expect(result.output).toMatch(/2 passed/);
    expect(result.output).toMatch(/tempmail: \d+ requests spent by "sign up" \(1 create, \d+ by waits and marks\)/);
    expect(result.code).toBe(0);
    playwrightReport = await readFile(reportFile, 'utf8');
  }, 90_000);

  it("attaches a failed test's inbox to the Playwright report: address, mails received, each mail a wait returned, never the key", async () => {
    expect(playwrightReport).toBeDefined();
    const report = JSON.parse(playwrightReport!);
    const failed = report.suites.flatMap(function specs(suite: PlaywrightSuite): PlaywrightSpec[] {
      return [...(suite.specs ?? []), ...(suite.suites ?? []).flatMap(specs)];
    }).find((spec: PlaywrightSpec) => spec.title === 'fails after its wait');
    const result = failed.tests[0].results[0];
    expect(result.status).toBe('failed');
    // The JSON reporter gives an attachment's body in base64, or the file Playwright wrote it to.
    const ours = result.attachments.filter((item: { name: string }) => item.name.startsWith('tempmail'));
    const attached: Record<string, string> = {};
    for (const item of ours) attached[item.name] = item.body === undefined ? await readFile(item.path!, 'utf8') : Buffer.from(item.body, 'base64').toString('utf8');
    expect(Object.keys(attached).sort()).toEqual(['tempmail inbox', 'tempmail inbox.txt']);
    // The key is in no attachment and nowhere else in the report.
    for (const body of [...Object.values(attached), playwrightReport!]) expect(body).not.toContain(env.TEMPMAIL_API_KEY);

    const inbox = JSON.parse(attached['tempmail inbox']!);
    expect(inbox.address).toMatch(/^[^@]+@[^@]+$/);
    expect(inbox.received).toHaveLength(2);
    expect(inbox.received.map((item: { subject: string }) => item.subject).sort()).toEqual(['Confirm your sign-up', 'Welcome']);
    expect(inbox.received[0]).toEqual({ received_at: expect.any(String), subject: expect.any(String), from: '"Acme" <no-reply@acme.example>' });
    expect(inbox.returned).toEqual([
      { subject: 'Confirm your sign-up', from: '"Acme" <no-reply@acme.example>', received_at: expect.any(String), code: '271828', link: 'https://app.example/confirm?token=abc', text: expect.any(String), text_omitted: expect.any(Number) },
      // What `toHaveReceived` found counts too: the test waited for it.
      { subject: 'Welcome', from: '"Acme" <no-reply@acme.example>', received_at: expect.any(String), code: null, link: null, text: 'Hello\n', text_omitted: 0 },
    ]);
    expect(inbox.returned[0].text).toHaveLength(2_000);
    expect(inbox.returned[0].text_omitted).toBeGreaterThan(0);
    // What the test spent counts the report's one list request; the test's own output says the same.
    const waits = Number(/tempmail: \d+ requests spent by "fails after its wait" \(1 create, (\d+) by waits and marks, 1 by the failure report\)/.exec(result.stdout.map((chunk: { text: string }) => chunk.text).join(''))?.[1]);
    expect(waits).toBeGreaterThan(0);
    expect(inbox.requests).toBe(1 + waits + 1);

    const text = attached['tempmail inbox.txt']!;
    expect(text).toContain(`address: ${inbox.address} (${inbox.id})\nrequests: ${inbox.requests} (1 create, ${waits} by waits and marks, 1 by the failure report)\nreceived: 2 mails\n`);
    expect(text).toMatch(/\n {2}\S+ "Welcome" from "\\"Acme\\" <no-reply@acme\.example>"\n/);
    expect(text).toContain('returned by a wait: "Confirm your sign-up" from "\\"Acme\\" <no-reply@acme.example>" at ');
    expect(text).toContain('\n  code: 271828\n  link: https://app.example/confirm?token=abc\n  text:\n    Your code is 271828, or follow https://app.example/confirm?token=abc\n');
    expect(text).toMatch(/… \(\d+ more characters\)\nreturned by a wait: "Welcome" from .+ at \S+\n {2}code: None\n {2}link: None\n {2}text:\n {4}Hello$/);
  });
});

/**
 * Answers no service of the contract gives: a loopback origin stands in for the API (its `answer`
 * set per test), a second one for another host, recording what reached it. Each case runs a
 * script of the installed package in the fresh project (`HOSTILE_*` tells it where).
 */
describe('the installed package, against answers the contract never gives', () => {
  let api: LoopbackOrigin;
  let other: LoopbackOrigin;
  let answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.end();
  const reachedOther: { method: string; authorization: string | undefined }[] = [];
  beforeAll(async () => {
    api = await startLoopbackOrigin(false, (request, response) => answer(request, response));
    other = await startLoopbackOrigin(false, (request, response) => {
      reachedOther.push({ method: request.method ?? '', authorization: request.headers.authorization });
      response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: { id: 'eml_fromtheotherhost', address: 'x@other.example', local_part: 'x', domain: 'other.example', status: 'active', created_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T00:15:00Z' } }));
    });
  });
  afterAll(async () => {
    await api?.close();
    await other?.close();
  });
  beforeEach(() => (reachedOther.length = 0));

  /** Runs `body` (an async function body given `tempmail`, a client of the stand-in API) and returns what it printed as JSON. */
  async function script(name: string, body: string): Promise<unknown> {
    await writeFile(
      join(app, name),
      `import * as sdk from '@tempmail/client';
const tempmail = new sdk.TempmailClient({ apiKey: 'tm_hostile_test_key_0000000000', baseUrl: process.env.HOSTILE_API });
const caught = (promise) => promise.then((value) => ({ value }), (error) => ({ name: error.name, message: error.message, status: error.status, location: error.location, client: error instanceof sdk.TempmailError }));
process.stdout.write(JSON.stringify(await (async () => { ${body} })()));
`,
    );
    const result = await run(process.execPath, [name], app, { HOSTILE_API: api.origin });
    expect(result).toMatchObject({ code: 0 });
    return JSON.parse(result.output);
  }

  it('takes a redirect for an error naming where it pointed, and follows it neither for a GET nor for a create', async () => {
    answer = (request, response) => {
      response.writeHead(302, { location: `${other.origin}${request.url}` });
      response.end();
    };
    const outcome = (await script('redirect.mjs', `return { get: await caught(tempmail.getEmail('eml_0000000000000000')), create: await caught(tempmail.createEmail({ local_part: 'redirected' })) };`)) as Record<string, unknown>;
    for (const [operation, path] of [['get', '/v1/emails/eml_0000000000000000'], ['create', '/v1/emails']] as const) {
      expect(outcome[operation]).toMatchObject({ name: 'RedirectError', status: 302, client: true, location: `${other.origin}${path}` });
      expect((outcome[operation] as { message: string }).message).toContain(`${other.origin}${path}`);
    }
    expect(reachedOther).toEqual([]);

    const cli = await run(join(app, 'node_modules', '.bin', 'tempmail'), ['inbox', 'show', 'eml_0000000000000000'], app, { TEMPMAIL_API_KEY: 'tm_hostile_test_key_0000000000', TEMPMAIL_BASE_URL: api.origin });
    expect(cli.code).toBe(1);
    expect(cli.output).toContain(`redirected to ${other.origin}/v1/emails/eml_0000000000000000`);
    expect(reachedOther).toEqual([]);
  });

  it('takes a 2xx that is not the documented JSON for an error naming what was wrong, and reads no more than its bound of a body', async () => {
    const item = { id: 'msg_0000000000000000', email_id: 'eml_0000000000000000', from: 'a@b.example', subject: 's', received_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T00:15:00Z', size_bytes: 1, attachment_count: 0, source_path: '/v1/messages/msg_0000000000000000/source' };
    const bodies: Record<string, string | Buffer> = {
      '/v1/usage': '<html>Sign in to the hotel Wi-Fi</html>',
      '/v1/emails/eml_0000000000000001': JSON.stringify([{ data: {} }]),
      '/v1/emails/eml_0000000000000002': JSON.stringify({ email: { id: 'eml_0000000000000002' } }),
      '/v1/emails/eml_0000000000000003': JSON.stringify({ data: { id: 'eml_0000000000000003', local_part: 'x', domain: 'd.example', status: 'active', created_at: '', expires_at: '' } }),
      '/v1/emails/eml_0000000000000004/messages?limit=100': JSON.stringify({ data: [{ ...item, to: 'not a list' }], pagination: { has_more: false } }),
      '/v1/domains': JSON.stringify({ data: [], pagination: { has_more: true } }),
      '/v1/emails/eml_0000000000000005': Buffer.alloc(9 * 1024 * 1024, 0x20),
    };
    answer = (request, response) => {
      response.writeHead(200, { 'content-type': request.url === '/v1/usage' ? 'text/html' : 'application/json' });
      // Written in two parts, without Content-Length (chunked): the bound holds on what arrives, not on what is declared.
      const body = bodies[request.url ?? ''];
      response.write(typeof body === 'string' ? body : body!.subarray(0, 1024));
      response.end(typeof body === 'string' ? undefined : body!.subarray(1024));
    };
    const outcome = (await script(
      'bodies.mjs',
      `return [
        await caught(tempmail.getUsage()),
        await caught(tempmail.getEmail('eml_0000000000000001')),
        await caught(tempmail.getEmail('eml_0000000000000002')),
        await caught(tempmail.getEmail('eml_0000000000000003')),
        await caught(tempmail.listMessages('eml_0000000000000004', { limit: 100 })),
        await caught(tempmail.listDomains()),
        await caught(tempmail.getEmail('eml_0000000000000005')),
      ];`,
    )) as { name: string; message: string; client: boolean }[];
    const whys = [
      'not JSON (text/html',
      'not an object with `data`',
      'not an object with `data`',
      'without the required field data.address (a string)',
      'without the required field data[0].to (an array)',
      'without the required field pagination.next_cursor (a string)',
      'larger than 8388608 bytes',
    ];
    expect(outcome.map(({ name, client }) => ({ name, client }))).toEqual(whys.map(() => ({ name: 'UnexpectedResponseError', client: true })));
    outcome.forEach(({ message }, index) => expect(message).toContain(whys[index]));
  });

  it('waits at most a minute on a Retry-After of 100000 seconds, and never past a wait\'s deadline', async () => {
    answer = (request, response) => {
      response.writeHead(request.url === '/v1/domains' ? 503 : 429, { 'content-type': 'application/json', 'retry-after': '100000', 'ratelimit-remaining': '50' });
      response.end(JSON.stringify({ error: { code: request.url === '/v1/domains' ? 'service_unavailable' : 'rate_limit_exceeded', message: 'later', request_id: 'req_0123456789abcdef0123' } }));
    };
    const outcome = (await script(
      'retry-after.mjs',
      `let now = 0;
      const sleeps = [];
      const patient = new sdk.TempmailClient({ apiKey: 'tm_hostile_test_key_0000000000', baseUrl: process.env.HOSTILE_API, now: () => now, sleep: async (ms) => { sleeps.push(ms); now += ms; }, random: () => 0.5, retry: { maxRateLimitRetries: 2, maxServerRetries: 1 } });
      const call = await caught(patient.getUsage());
      const callSleeps = sleeps.splice(0);
      const server = await caught(patient.listDomains());
      const serverSleeps = sleeps.splice(0);
      const wait = await caught(patient.waitForMessage('eml_0000000000000000', { timeoutMs: 90000 }));
      const started = now - sleeps.reduce((sum, ms) => sum + ms, 0);
      return { call: call.name, callSleeps, server: server.name, serverSleeps, wait: wait.name, waitSleeps: sleeps, waitEnded: now - started };`,
    )) as Record<string, unknown>;
    expect(outcome).toEqual({ call: 'RateLimitedError', callSleeps: [60_000, 60_000], server: 'ServiceUnavailableError', serverSleeps: [60_000], wait: 'WaitTimeoutError', waitSleeps: [60_000, 30_000], waitEnded: 90_000 });
  });
});
