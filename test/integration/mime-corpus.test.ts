import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { serviceStartTimeoutMs } from '../support/test-runtime';
import { sendMail, smtpSession, type SmtpSession } from '../support/smtp-client';

interface Expectation {
  file: string;
  description: string;
  expect: {
    subject?: string;
    from_includes?: string;
    to?: string[];
    text_includes?: string[];
    html_includes?: string[];
    html_excludes?: string[];
    has_html?: boolean;
    attachments?: { content_type: string; size_bytes: number; filename_includes?: string }[];
    attachment_count?: number;
  };
}

const fixtures = join(__dirname, '..', 'fixtures', 'mime');
const expectations: Expectation[] = JSON.parse(readFileSync(join(fixtures, 'expectations.json'), 'utf8'));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** SMTP carries lines ending in CRLF: the client turns a bare LF into CRLF on the way. */
function asSentOverSmtp(raw: Buffer): Buffer {
  return Buffer.from(raw.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
}

let service: TestService;
let apiKey: string;
/** One SMTP session delivers the whole corpus, as a relay delivering a queue would. */
let smtp: SmtpSession;

beforeAll(async () => {
  service = await startTestService();
  ({ apiKey } = await service.account('paid'));
  smtp = await smtpSession(service.runtime.smtpPort);
}, serviceStartTimeoutMs);
afterAll(async () => {
  smtp.close();
  await service.close();
});

/** Sends raw bytes to a fresh address of ours and returns the one message it became. */
async function deliver(raw: Buffer, localPart: string) {
  const email = (await json(await service.createEmail(apiKey, { local_part: localPart }))).data;
  await smtp.send({ envelope: { from: 'corpus@example.org', to: [email.address] }, raw });
  const list = await json(await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey }));
  expect(list.data).toHaveLength(1);
  const read = await service.request(`/v1/messages/${list.data[0].id}`, { key: apiKey });
  expect(read.status).toBe(200);
  return (await json(read)).data;
}

describe('the MIME corpus', () => {
  it('holds at least 40 messages made by the project', () => {
    expect(expectations.length).toBeGreaterThanOrEqual(40);
  });

  it.each(expectations.map((entry) => [entry.file, entry] as const))('ingests %s with the expected output', async (file, entry) => {
    const raw = readFileSync(join(fixtures, file));
    const message = await deliver(raw, `corpus-${file.slice(0, 2)}`);
    const { expect: want } = entry;
    if (want.subject !== undefined) expect(message.subject).toBe(want.subject);
    if (want.from_includes !== undefined) expect(message.from).toContain(want.from_includes);
    if (want.to !== undefined) expect(message.to).toEqual(want.to);
    for (const text of want.text_includes ?? []) expect(message.text).toContain(text);
    for (const html of want.html_includes ?? []) expect(message.html).toContain(html);
    for (const html of want.html_excludes ?? []) expect(message.html).not.toContain(html);
    if (want.has_html !== undefined) expect(message.html !== '').toBe(want.has_html);
    if (want.attachments !== undefined) {
      expect(message.attachments.map((a: { content_type: string; size_bytes: number }) => [a.content_type, a.size_bytes])).toEqual(
        want.attachments.map((a) => [a.content_type, a.size_bytes]),
      );
      want.attachments.forEach((a, index) => {
        if (a.filename_includes !== undefined) expect(message.attachments[index].filename).toContain(a.filename_includes);
      });
    }
    if (want.attachment_count !== undefined) expect(message.attachment_count).toBe(want.attachment_count);
    expect(message.attachment_count).toBe(message.attachments.length);
    expect(message.text).not.toContain('\u0000');
    for (const attachment of message.attachments) {
      expect(attachment.filename).not.toMatch(/[\u0000-\u001f\u007f]/);
      const download = await service.request(attachment.download_path, { key: apiKey });
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer())).toHaveLength(attachment.size_bytes);
      expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="[A-Za-z0-9._-]+"; filename\*=UTF-8''[A-Za-z0-9%!#$&+.^_`|~-]+$/);
    }
    const source = await service.request(`/v1/messages/${message.id}/source`, { key: apiKey });
    expect(sha256(Buffer.from(await source.arrayBuffer()))).toBe(sha256(asSentOverSmtp(raw)));
  });
});

describe('large and empty attachments', () => {
  it('keeps a 25 MB attachment exactly, streamed in and out', async () => {
    const email = (await json(await service.createEmail(apiKey, { local_part: 'big-attachment' }))).data;
    const bytes = Buffer.alloc(25 * 1024 * 1024);
    for (let i = 0, seed = 7; i < bytes.length; i++) bytes[i] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16;
    await sendMail(service.runtime.smtpPort, {
      from: 'big@example.org',
      to: email.address,
      subject: 'big',
      text: 'see attachment',
      attachments: [{ filename: 'big.bin', content: Readable.from([bytes]) }],
    });
    const [item] = (await json(await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey }))).data;
    const message = (await json(await service.request(`/v1/messages/${item.id}`, { key: apiKey }))).data;
    expect(message.attachments).toEqual([expect.objectContaining({ filename: 'big.bin', size_bytes: bytes.length })]);
    const download = await service.request(message.attachments[0].download_path, { key: apiKey });
    expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(bytes));
  }, 60_000);
});
