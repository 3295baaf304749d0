import { createSesParser } from '../../lambdas/inbound/ses-parser';
import { sesRawPrefix, type SesReceiptEvent } from '../../lambdas/inbound/ses-events';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { sendRaw } from '../support/smtp-client';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());


/** A mail of one text part (or `textParts` of them) and `count` small attachments. */
function withAttachments(to: string, count: number, textParts = 1): string {
  const boundary = 'many-parts-boundary';
  let raw = `From: a@example.org\r\nTo: ${to}\r\nSubject: ${count} attachments\r\nMIME-Version: 1.0\r\n`;
  raw += `Content-Type: multipart/mixed; boundary="${boundary}"\r\n\r\n`;
  raw += `--${boundary}\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n`.repeat(textParts);
  for (let n = 0; n < count; n++) {
    raw += `--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="f${n}.bin"\r\n\r\npart ${n}\r\n`;
  }
  return `${raw}--${boundary}--\r\n`;
}

async function smtpReply(to: string, raw: string): Promise<{ code: number; response: string }> {
  try {
    const sent = await sendRaw(service.runtime.smtpPort, { from: 'a@example.org', to: [to] }, raw);
    return { code: 250, response: sent.response };
  } catch (error) {
    const { responseCode, response } = error as { responseCode: number; response: string };
    return { code: responseCode, response };
  }
}

async function listed(apiKey: string, emailId: string) {
  return (await json(await service.request(`/v1/emails/${emailId}/messages`, { key: apiKey }))).data;
}

describe('a mail whose header block is larger than the parser takes (1 MiB)', () => {
  it.each([
    ['one long header line', (to: string) => `From: a@example.org\r\nTo: ${to}\r\nX-Long: ${'a'.repeat(1_100_000)}\r\nSubject: big\r\n\r\nbody\r\n`],
    ['many header lines', (to: string) => `From: a@example.org\r\nTo: ${to}\r\n${Array.from({ length: 30_000 }, (_, n) => `X-Line-${n}: ${'v'.repeat(40)}\r\n`).join('')}Subject: big\r\n\r\nbody\r\n`],
    [
      "a part's headers",
      (to: string) =>
        `From: a@example.org\r\nTo: ${to}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n` +
        `--b\r\nContent-Type: text/plain\r\nX-Long: ${'a'.repeat(1_100_000)}\r\n\r\nbody\r\n--b--\r\n`,
    ],
  ])('is refused for good with its own reason: %s', async (_shape, mail) => {
    const { apiKey, email } = await service.inbox(`big-headers-${_shape.length}-${Date.now() % 100_000}`);
    const reply = await smtpReply(email.address, mail(email.address));
    expect(reply.code).toBe(552);
    expect(reply.response).toMatch(/^552 5\.3\.4 Message header block larger than 1 MiB; not delivered/);
    expect(await listed(apiKey, email.id)).toEqual([]);
    expect(service.logger.lines).toContainEqual(expect.objectContaining({ message: 'mail refused for good', reason: 'header_limit' }));
  });
});

describe('a mail with more MIME parts than the parser takes', () => {
  it('is refused for good over SMTP (554 with the reason), never accepted with attachments missing', async () => {
    const { apiKey, email } = await service.inbox('too-many-parts');
    const reply = await smtpReply(email.address, withAttachments(email.address, 1500));
    expect(reply.code).toBe(554);
    expect(reply.response).toMatch(/^554 5\.3\.4 Message has more than 1,000 attachments or 2,000 MIME parts/);
    expect(await listed(apiKey, email.id)).toEqual([]);
    expect(service.logger.lines).toContainEqual(expect.objectContaining({ message: 'mail refused for good', reason: 'mime_limit' }));
  });

  it('refuses a mail past the part limit when most of its parts are not attachments', async () => {
    const { apiKey, email } = await service.inbox('parts-mid-attachment');
    // 1,500 inline text parts, then 600 attachments: the parser's part limit (2,000) stops it.
    const reply = await smtpReply(email.address, withAttachments(email.address, 600, 1500));
    expect(reply.code).toBe(554);
    expect(await listed(apiKey, email.id)).toEqual([]);
  });

  it('takes a mail at the limit whole: all 1,000 attachments listed', async () => {
    const { apiKey, email } = await service.inbox('many-parts-fit');
    expect((await smtpReply(email.address, withAttachments(email.address, 1000))).code).toBe(250);
    const [item] = await listed(apiKey, email.id);
    expect(item.attachment_count).toBe(1000);
    const message = (await json(await service.request(`/v1/messages/${item.id}`, { key: apiKey }))).data;
    expect(message.text).toBe('see attached');
    expect(message.attachments.map((a: { filename: string }) => a.filename)).toEqual(Array.from({ length: 1000 }, (_, n) => `f${n}.bin`));
  });

  it('in AWS, where SES has accepted the mail already, keeps what was parsed and counts the truncation as a metric', async () => {
    const { apiKey, email } = await service.inbox('ses-many-parts');
    await service.runtime.services.blobs.put(`${sesRawPrefix}ses-many-parts-0001`, Buffer.from(withAttachments(email.address, 1500)));
    const event: SesReceiptEvent = {
      Records: [
        { ses: { mail: { messageId: 'ses-many-parts-0001', timestamp: service.clock.now().toISOString() }, receipt: { recipients: [email.address] } } },
      ],
    };
    const { messageIds } = await createSesParser(() => service.runtime.services)(event);
    expect(messageIds).toHaveLength(1);
    const [item] = await listed(apiKey, email.id);
    // The first 1,000 attachments and the body, every time; the rest are counted, not lost in silence.
    expect(item.attachment_count).toBe(1000);
    const message = (await json(await service.request(`/v1/messages/${item.id}`, { key: apiKey }))).data;
    expect(message.text).toBe('see attached');
    expect(message.attachments[999].filename).toBe('f999.bin');
    // One log line that CloudWatch reads as the metric MailTruncated (embedded metric format).
    const line = service.logger.lines.find((entry) => entry.message === 'mail truncated');
    expect(line).toMatchObject({
      level: 'warn',
      reason: 'mime_limit',
      attachments_kept: 1000,
      MailTruncated: 1,
      // Counted for this stage: another stage of the account alarms on its own.
      Stage: 'local',
      _aws: {
        CloudWatchMetrics: [{ Namespace: 'Tempmail', Dimensions: [['Stage']], Metrics: [{ Name: 'MailTruncated', Unit: 'Count' }] }],
      },
    });
    expect(JSON.stringify(line)).not.toContain('f1.bin');
  });
});
