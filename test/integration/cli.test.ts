import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packedClient } from '../support/packed-client';
import { runProcess } from '../support/run-process';
import { sendMail } from '../support/smtp-client';
import { runAdminCommand, spawnStartCommand, type SpawnedService } from '../support/spawn-service';

/**
 * The `tempmail` CLI, spawned as a process against `npm start` (its command, without npm), as a
 * shell script in CI runs it: the package's `bin` as `npm pack` ships it (its build: the
 * package's own `tsc` settings), packed once a run and shared with the installed package's suite
 * (support/packed-client.ts), in a folder of its own, so that no build of the package writes
 * under it.
 */
let cliPath: string;

let service: SpawnedService;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tempmail-cli-'));
  cliPath = join((await packedClient()).unpacked, 'dist', 'cli.js');
  service = await spawnStartCommand({ DATA_DIR: dataDir });
  const account = await runAdminCommand(['account', 'create', '--plan', 'paid'], { DATA_DIR: dataDir });
  env = { TEMPMAIL_API_KEY: JSON.parse(account.stdout).api_key, TEMPMAIL_BASE_URL: service.apiUrl };
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs `tempmail …` to its end. */
const run = (args: string[], extraEnv: Record<string, string | undefined> = {}) =>
  runProcess(process.execPath, [cliPath, ...args], { env: { ...process.env, ...env, ...extraEnv } });

describe('the tempmail CLI against npm start', () => {
  let emailId: string;
  let address: string;

  it('inbox create prints the address; --json prints the email', async () => {
    const human = await run(['inbox', 'create', '--local-part', 'cli-human']);
    expect(human).toMatchObject({ code: 0, stderr: '' });
    expect(human.stdout).toMatch(/^cli-human@tempmail\.localhost\nid: eml_\S+\nexpires: /);

    const created = await run(['inbox', 'create', '--json']);
    expect(created.code).toBe(0);
    const email = JSON.parse(created.stdout);
    expect(email).toMatchObject({ id: expect.stringMatching(/^eml_/), status: 'active' });
    emailId = email.id;
    address = email.address;

    const shown = await run(['inbox', 'show', emailId, '--json']);
    expect(JSON.parse(shown.stdout)).toEqual(email);
  });

  it('messages wait --extract code prints only the code once the mail arrives, exit 0', async () => {
    const waiting = run(['messages', 'wait', emailId, '--timeout', '30s', '--subject', 'verify', '--extract', 'code']);
    await sendMail(service.smtpPort, { from: 'Acme <no-reply@acme.example>', to: address, subject: 'Newsletter', text: 'Order 20931845' });
    await sendMail(service.smtpPort, {
      from: 'Acme <no-reply@acme.example>',
      to: address,
      subject: 'Verify your email',
      html: '<p>Your verification code:</p><p><b>482913</b></p><p><a href="https://acme.example/verify?t=1&amp;u=2">Verify</a></p>',
    });
    const result = await waiting;
    expect(result).toEqual({ code: 0, stdout: '482913\n', stderr: '' }); // no spinner: stderr is not a terminal

    const link = await run(['messages', 'wait', emailId, '--timeout', '5s', '--subject', 'verify', '--extract', 'link']);
    expect(link).toMatchObject({ code: 0, stdout: 'https://acme.example/verify?t=1&u=2\n' });
    // With --json, the requests the wait spent: the mail is there, so one listing and one read.
    const priced = await run(['messages', 'wait', emailId, '--timeout', '5s', '--subject', 'verify', '--extract', 'code', '--json']);
    expect(JSON.parse(priced.stdout)).toEqual({ code: '482913', message_id: expect.stringMatching(/^msg_/), requests: 2 });
  });

  it('messages list, message show, source and attachment', async () => {
    await sendMail(service.smtpPort, {
      from: 'Reports <reports@acme.example>',
      to: address,
      subject: 'Your report',
      text: 'Attached.',
      attachments: [{ filename: 'report.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' }],
    });
    const list = JSON.parse((await run(['messages', 'list', emailId, '--json'])).stdout);
    expect(list.map((item: { subject: string }) => item.subject)).toEqual(['Your report', 'Verify your email', 'Newsletter']);
    const human = await run(['messages', 'list', emailId]);
    expect(human.stdout.split('\n').filter(Boolean)).toHaveLength(3);

    const shown = await run(['message', 'show', list[0].id]);
    expect(shown.stdout).toContain('subject: Your report');
    expect(shown.stdout).toContain('report.csv  text/csv');
    const message = JSON.parse((await run(['message', 'show', list[0].id, '--json'])).stdout);

    const sourceFile = join(dataDir, 'source.eml');
    expect((await run(['message', 'source', list[0].id, '--out', sourceFile])).code).toBe(0);
    expect(await readFile(sourceFile, 'utf8')).toContain('Subject: Your report');
    const attachment = await run(['message', 'attachment', list[0].id, message.attachments[0].id]);
    expect(attachment).toMatchObject({ code: 0, stdout: 'a,b\n1,2\n' });
  });

  it('domains and usage', async () => {
    expect((await run(['domains'])).stdout).toBe('tempmail.localhost\n');
    const usage = JSON.parse((await run(['usage', '--json'])).stdout);
    expect(usage).toMatchObject({ plan: 'paid', allowance_mode: 'balance' });
  });

  it('exits 2 when the wait times out', async () => {
    const result = await run(['messages', 'wait', emailId, '--timeout', '2s', '--subject', 'never sent']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/No matching message arrived .* within 2000 ms/);
    // It says why: its criteria, deadline, polls and requests, and each arrival that did not match.
    expect(result.stderr).toMatch(/waited for: subject \/never sent\/i; deadline \d{4}-\d\d-\d\dT[\d:.]+Z; \d+ polls, \d+ requests; \d+ arrived in the window, \d+ did not match, 0 expired meanwhile/);
    expect(result.stderr).toMatch(/\n  "Verify your email" from ".*no-reply@acme\.example.*" at \S+ \(failed subject\)/);
    expect(result.stderr).not.toContain('482913');
  });

  it('ends a wait at its request budget with exit 2, reporting the requests spent', async () => {
    const refused = await run(['messages', 'wait', emailId, '--timeout', '60s', '--max-requests', '2', '--since', 'now']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain("--max-requests 2 is below this wait's worst case of 16 requests (--timeout 60s)");
    const result = await run(['messages', 'wait', emailId, '--timeout', '60s', '--max-requests', '2', '--stop-at-budget', '--subject', 'never sent', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { kind: 'timeout', reason: 'budget', requests: 2 } });
    expect((await run(['messages', 'wait', emailId, '--max-requests', '0'])).code).toBe(64);
  });

  it('shows a spinner with the elapsed time on stderr when stderr is a terminal', async () => {
    // `script` gives the CLI a pseudo-terminal, as a person's shell does.
    const command = [process.execPath, cliPath, 'messages', 'wait', emailId, '--timeout', '1500ms', '--subject', 'never sent'].join(' ');
    const { code, stdout: terminal } = await runProcess('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env } });
    expect(code).toBe(2);
    expect(terminal).toMatch(/\r\S waiting for mail… 1s/);
  });

  it('exits 1 on an error answer, 64 on a bad command line or a missing key', async () => {
    const missing = await run(['inbox', 'show', 'eml_doesnotexist00']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^tempmail: 404 resource_not_found: .* \(request req_\S+\)\n$/);
    expect((await run(['usage'], { TEMPMAIL_API_KEY: 'tm_local_wrong' })).stderr).toMatch(/401 invalid_api_key/);
    expect((await run(['usage'], { TEMPMAIL_API_KEY: '' })).code).toBe(64);
    expect((await run(['messages', 'wait', emailId, '--extract', 'phone'])).code).toBe(64);
    const asJson = await run(['inbox', 'show', 'eml_doesnotexist00', '--json']);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ error: { kind: 'api', status: 404, code: 'resource_not_found' } });
  });

  it('answers --version, -h, --help and help, and refuses an unknown option with the closest one', async () => {
    expect((await run(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    for (const asked of [['-h'], ['--help'], ['help'], ['messages', 'wait', '--help']]) {
      const result = await run(asked);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('tempmail messages wait EMAIL_ID');
    }
    const typo = await run(['messages', 'wait', emailId, '--subjct', 'verify']);
    expect(typo.code).toBe(64);
    expect(typo.stderr).toContain('unknown option --subjct (did you mean --subject?)');
    const timeout = await run(['messages', 'wait', emailId, '--timout', '3s']);
    expect(timeout.stderr).toContain('did you mean --timeout?');
  });

  it('refuses a malformed key before any request, without printing it', async () => {
    const result = await run(['usage'], { TEMPMAIL_API_KEY: 'tm_secret\nline' });
    expect(result.code).toBe(64);
    expect(result.stderr).not.toContain('tm_secret');
  });

  it('inbox create --format env prints shell assignments, and messages wait --since now skips the mail already there', async () => {
    const created = await run(['inbox', 'create', '--format', 'env']);
    expect(created.stdout).toMatch(/^TEMPMAIL_ID=eml_\S+\nTEMPMAIL_ADDRESS=\S+@\S+\n$/);
    const id = /TEMPMAIL_ID=(\S+)/.exec(created.stdout)![1]!;
    const to = /TEMPMAIL_ADDRESS=(\S+)/.exec(created.stdout)![1]!;
    await sendMail(service.smtpPort, { from: 'app@example.com', to, subject: 'First code', text: 'Code 111111' });
    const first = await run(['messages', 'wait', id, '--timeout', '20s', '--extract', 'code']);
    expect(first.stdout).toBe('111111\n');
    const waiting = run(['messages', 'wait', id, '--since', 'now', '--timeout', '1500ms', '--extract', 'code']);
    expect((await waiting).code).toBe(2);
  });
});
