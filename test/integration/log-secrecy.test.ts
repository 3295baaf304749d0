import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashApiKey } from '../../lambdas/core/api-keys';
import type { BlobStore } from '../../lambdas/core/ports/blob-store';
import { contractFetch } from '../support/contract';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { refusalCode, sendMail } from '../support/smtp-client';
import { runAdminCommand, spawnNpmStart, type SpawnedService } from '../support/spawn-service';
import { storageFaults } from '../support/storage-faults';
import { wrappedBlobStore } from '../support/wrapped-blob-store';

/** Private content of one mail, each piece distinctive enough that any trace of it is found. */
const mail = {
  subject: 'Subject-secret-7f3a91 your code',
  text: 'Body-text-secret-2c8e44 do not log me',
  htmlMarker: 'Body-html-secret-9b1d07',
  messageIdHeader: '<raw-source-secret-51ac3e@sender.example.org>',
  attachment: Buffer.from('attachment-byte-secret-e6042f %PDF-1.4 binary \u0000\u0001\u0002'),
};

/** The forms a secret could take in a log line: as is, JSON-escaped, base64 (MIME), or its attachment base64. */
function forms(secret: string | Buffer): string[] {
  const text = secret.toString();
  const bytes = Buffer.isBuffer(secret) ? secret : Buffer.from(secret);
  return [...new Set([text, JSON.stringify(text).slice(1, -1), bytes.toString('base64').slice(0, 24), bytes.subarray(0, 24).toString('hex')])];
}

function leaks(output: string, secrets: Record<string, string | Buffer>): string[] {
  return Object.entries(secrets).flatMap(([name, secret]) =>
    forms(secret)
      .filter((form) => form.length >= 8 && output.includes(form))
      .map((form) => `${name} appears in the logs as ${JSON.stringify(form.slice(0, 40))}`),
  );
}

/** One full client and sender flow against a running service: every route, an attachment, a cursor. */
async function fullFlow(request: (path: string, init?: RequestInit) => Promise<Response>, smtpPort: number, localPart: string) {
  const created = await request('/v1/emails', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `log-secrecy-${localPart}-key` },
    body: JSON.stringify({ local_part: localPart }),
  });
  expect(created.status).toBe(201);
  const email = (await json(created)).data;
  for (let n = 0; n < 3; n += 1) {
    await sendMail(smtpPort, {
      from: 'sender@example.org',
      to: email.address,
      subject: mail.subject,
      text: mail.text,
      html: `<p>${mail.htmlMarker}</p><img src=x onerror=alert(1)>`,
      messageId: mail.messageIdHeader,
      attachments: [{ filename: 'secret.pdf', content: mail.attachment }],
    });
  }
  const first = await json(await request(`/v1/emails/${email.id}/messages?limit=1`));
  const cursor = first.pagination.next_cursor as string;
  expect(cursor).toEqual(expect.any(String));
  expect((await request(`/v1/emails/${email.id}/messages?limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
  expect((await request(`/v1/emails/${email.id}/messages?cursor=${encodeURIComponent(`${cursor}x`)}`)).status).toBe(400);
  const message = (await json(await request(`/v1/messages/${first.data[0].id}`))).data;
  expect(message.text).toContain(mail.text);
  expect(await (await request(`/v1/messages/${message.id}/source`)).text()).toContain(mail.messageIdHeader);
  const attachment = await request(`/v1/messages/${message.id}/attachments/${message.attachments[0].id}`);
  expect(Buffer.from(await attachment.arrayBuffer())).toEqual(mail.attachment);
  for (const path of ['/v1/usage', '/v1/domains', `/v1/emails/${email.id}`, '/v1/messages/msg_0000000000nope', '/v1/nowhere']) await request(path);
  return { email, cursor };
}

describe('the leak check', () => {
  it('finds a secret as is, JSON-escaped, in base64 and in hex', () => {
    const secrets = { 'attachment bytes': mail.attachment, subject: mail.subject };
    expect(leaks(`{"detail":"${JSON.stringify(mail.attachment.toString()).slice(1, -1)}"}`, secrets)).toHaveLength(1);
    expect(leaks(`Content: ${mail.attachment.toString('base64')}`, secrets)).toHaveLength(1);
    expect(leaks(`bytes ${mail.attachment.toString('hex')}`, secrets)).toHaveLength(1);
    expect(leaks(`{"subject":"${mail.subject}"}`, secrets)).toEqual([`subject appears in the logs as ${JSON.stringify(mail.subject)}`]);
    expect(leaks('{"level":"info","message":"mail delivered"}', secrets)).toEqual([]);
  });
});

describe('log secrecy, in-process, with storage failing on the way', () => {
  let service: TestService;
  const faults = storageFaults();
  let failBlobs = 0;
  const captured: string[] = [];
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };

  beforeAll(async () => {
    const flaky = (blobs: BlobStore): BlobStore =>
      wrappedBlobStore(blobs, {
        put: async (key, body, options) => {
          if (failBlobs > 0 && key.includes('/att/')) {
            failBlobs -= 1;
            throw Object.assign(new Error(`disk full writing ${key}`), { name: 'ServiceUnavailable' });
          }
          return blobs.put(key, body, options);
        },
      });
    service = await startTestService(
      { logLevel: 'debug' },
      { instrumentDynamoDb: (client) => faults.instrument(client), wrapBlobs: flaky },
    );
    // Everything the process prints while the flow runs, beside the service's own log lines.
    for (const stream of ['stdout', 'stderr'] as const) {
      process[stream].write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        captured.push(chunk.toString());
        return (writes[stream] as (...args: unknown[]) => boolean).call(process[stream], chunk, ...rest);
      }) as typeof process.stdout.write;
    }
  });
  afterAll(async () => {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    await service.close();
  });

  it('logs no API key, key hash, cursor secret, subject, body, raw source or attachment byte', async () => {
    const { apiKey } = await service.account('paid');
    const request = (path: string, init: RequestInit = {}) =>
      contractFetch(`${service.runtime.apiUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${apiKey}`, ...init.headers } });
    const { email } = await fullFlow(request, service.runtime.smtpPort, 'logs-in-process');

    // Failures on the way: an attachment that cannot be stored (451), a throttled message read
    // and a throttled account (503), a refused key (401) and a key sent in the query (401).
    failBlobs = 1;
    expect(await refusalCode(sendMail(service.runtime.smtpPort, { from: 'a@example.org', to: email.address, subject: mail.subject, text: mail.text, attachments: [{ content: mail.attachment }] }))).toBe(451);
    faults.fail({ command: 'QueryCommand', table: '-messages', times: 1 });
    expect((await request(`/v1/emails/${email.id}/messages`)).status).toBeGreaterThanOrEqual(500);
    faults.fail({ command: 'UpdateItemCommand', table: '-accounts', times: 1 });
    expect((await request('/v1/usage')).status).toBe(503);
    expect((await contractFetch(`${service.runtime.apiUrl}/v1/usage`, { headers: { Authorization: `Bearer ${apiKey}x` } })).status).toBe(401);
    expect((await contractFetch(`${service.runtime.apiUrl}/v1/usage?api_key=${apiKey}`)).status).toBe(401);

    const logLines = service.logger.lines.map((line) => JSON.stringify(line));
    const output = [...logLines, ...captured].join('\n');
    expect(service.logger.lines.length).toBeGreaterThanOrEqual(5);
    expect(logLines.some((line) => line.includes('"level":"error"'))).toBe(true);
    expect(
      leaks(output, {
        'API key': apiKey,
        'key hash': hashApiKey(apiKey),
        'cursor secret': 'test-cursor-secret-0123456789abcdef',
        subject: mail.subject,
        'text body': mail.text,
        'html body': mail.htmlMarker,
        'raw source': mail.messageIdHeader,
        'attachment bytes': mail.attachment,
      }),
    ).toEqual([]);
  }, 60_000);
});

describe('log secrecy of npm start at LOG_LEVEL=debug', () => {
  let dataDir: string;
  let service: SpawnedService | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tempmail-logs-'));
  });
  afterAll(async () => {
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints no API key, key hash, cursor secret, subject, body, raw source or attachment byte in its whole output', async () => {
    service = await spawnNpmStart({ DATA_DIR: dataDir, LOG_LEVEL: 'debug' });
    const created = await runAdminCommand(['account', 'create', '--plan', 'paid'], { DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    const apiKey = JSON.parse(created.stdout).api_key as string;
    const request = (path: string, init: RequestInit = {}) =>
      contractFetch(`${service!.apiUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${apiKey}`, ...init.headers } });
    await fullFlow(request, service.smtpPort, 'logs-npm-start');
    await service.stop();
    const cursorSecret = (await readFile(join(dataDir, 'cursor-secret'), 'utf8')).trim();
    expect(cursorSecret.length).toBeGreaterThanOrEqual(32);
    expect(service.output()).toMatch(/"level":"info"/);
    expect(
      leaks(service.output(), {
        'API key': apiKey,
        'key hash': hashApiKey(apiKey),
        'cursor secret': cursorSecret,
        subject: mail.subject,
        'text body': mail.text,
        'html body': mail.htmlMarker,
        'raw source': mail.messageIdHeader,
        'attachment bytes': mail.attachment,
      }),
    ).toEqual([]);
  }, 90_000);
});
