import { createHash, randomUUID } from 'node:crypto';
import { addDomain, disableDomain } from '../../lambdas/core/domains';
import { domainMemoryMs } from '../../lambdas/core/recipients';
import type { BlobStore } from '../../lambdas/core/ports/blob-store';
import { createSesParser } from '../../lambdas/inbound/ses-parser';
import { sesRawPrefix } from '../../lambdas/inbound/ses-events';
import { addedSince, blobKeys } from '../support/blob-keys';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { byRuntime, onlyOn, serviceStartTimeoutMs } from '../support/test-runtime';
import { refusalCode, sendMail, sendRaw, smtpDialogue } from '../support/smtp-client';
import { stackDomains } from '../support/stack-context';
import { testConfig } from '../support/test-config';
import { wrappedBlobStore } from '../support/wrapped-blob-store';

let service: TestService;
let failBlobPuts = 0;
let failingKeys = /./;

/** A blob store whose next puts (of matching keys) fail, as a full disk or an S3 outage would. */
function flakyBlobs(blobs: BlobStore): BlobStore {
  return wrappedBlobStore(blobs, {
    put: async (key, body, options) => {
      if (failBlobPuts > 0 && failingKeys.test(key)) {
        failBlobPuts -= 1;
        throw Object.assign(new Error('storage down'), { name: 'ServiceUnavailable' });
      }
      return blobs.put(key, body, options);
    },
  });
}

beforeAll(async () => {
  service = await startTestService({}, { wrapBlobs: flakyBlobs });
}, serviceStartTimeoutMs);
afterAll(() => service.close());

const smtp = () => service.runtime.smtpPort;

/** A multipart body (its Content-Type header, a blank line, the parts) around the given parts. */
function multipart(subtype: string, parts: string[], boundary = `b-${subtype}`): string {
  return `Content-Type: multipart/${subtype}; boundary="${boundary}"\r\n\r\n${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;
}
const inlineImage = 'Content-Type: image/png\r\nContent-ID: <logo@example.org>\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=';
const attachedFile = 'Content-Type: text/csv\r\nContent-Disposition: attachment; filename="report.csv"\r\n\r\na,b\r\n1,2';

/**
 * The domain the operator turns off in a test. On `npm start` every domain added receives, so a
 * test has one of its own; the stack's receipt rule covers only the domains of its synthesis
 * (test/support/stack-context.ts), and a domain outside it is never receiving there
 * (docs/decisions.md: `domain add` against a stack). The one the suite's own config leaves
 * unregistered is added by each test that needs it and left disabled: while it receives, it
 * sorts before the suite's domain and is the default of a create without one, so such a test
 * names the suite's domain for any other address it makes.
 */
const operatorDomainOnStack = stackDomains.find((domain) => !testConfig.domains.includes(domain))!;

/**
 * A recipient whose domain the receipt rule covers, but who cannot receive (never issued,
 * expired, on a disabled domain): the local intake refuses it at RCPT TO (550); SES takes every
 * recipient of a covered domain (250), and the recipient filter stops the rule set before its S3
 * action when no recipient can receive, so nothing of the mail is stored nor delivered.
 */
const refusedAtRcpt = byRuntime<number | undefined>({ 'npm start': 550, 'start:stack': undefined });

async function messagesOf(key: string, emailId: string, query = '') {
  const response = await service.request(`/v1/emails/${emailId}/messages${query}`, { key });
  expect(response.status).toBe(200);
  return json(response);
}

describe('receiving mail over SMTP', () => {
  it('turns a received mail into a message: listed, readable, sanitized, with its source and attachment', async () => {
    const { apiKey, email } = await service.inbox('reader');
    const attachment = Buffer.from('%PDF-1.4 not really a pdf\n');
    await sendMail(smtp(), {
      from: '"Shop" <shop@example.org>',
      to: 'reader@tempmail.localhost',
      subject: 'Your code is 493021',
      text: 'Your code is 493021',
      html: '<p>Your code is <b>493021</b></p><img src=x onerror=alert(1)><script>alert(2)</script><a href="javascript:alert(3)">x</a>',
      attachments: [{ filename: 'invoice.pdf', content: attachment, contentType: 'application/pdf' }],
    });

    const list = await messagesOf(apiKey, email.id);
    expect(list.pagination).toEqual({ has_more: false });
    expect(list.data).toHaveLength(1);
    const item = list.data[0];
    expect(Object.keys(item).sort()).toEqual(
      ['attachment_count', 'email_id', 'expires_at', 'from', 'id', 'received_at', 'size_bytes', 'source_path', 'subject', 'to'].sort(),
    );
    expect(item).toMatchObject({
      email_id: email.id,
      subject: 'Your code is 493021',
      to: ['reader@tempmail.localhost'],
      attachment_count: 1,
      source_path: `/v1/messages/${item.id}/source`,
    });
    expect(item.id).toMatch(/^msg_[A-Za-z0-9_-]{10,64}$/);
    expect(item.from).toContain('shop@example.org');
    expect(Date.parse(item.expires_at) - Date.parse(item.received_at)).toBe(15 * 60 * 1000);

    const read = await service.request(`/v1/messages/${item.id}`, { key: apiKey });
    expect(read.status).toBe(200);
    const { data: message } = await json(read);
    expect(message.text).toContain('493021');
    expect(message.html).toContain('<b>493021</b>');
    for (const residue of ['<script', 'onerror', 'javascript:', 'alert(2)']) expect(message.html).not.toContain(residue);
    expect(message.attachments).toEqual([
      {
        id: expect.stringMatching(/^att_[A-Za-z0-9_-]{10,64}$/),
        filename: 'invoice.pdf',
        content_type: 'application/pdf',
        size_bytes: attachment.length,
        expires_at: item.expires_at,
        download_path: `/v1/messages/${item.id}/attachments/${message.attachments[0].id}`,
      },
    ]);

    const download = await service.request(message.attachments[0].download_path, { key: apiKey });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(attachment);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="invoice.pdf"; filename*=UTF-8''invoice.pdf`,
    );
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(download.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(download.headers.get('cache-control')).toBe('private, no-store');
  });

  it('keeps the raw source byte for byte', async () => {
    const { apiKey, email } = await service.inbox('raw-keeper');
    const raw = Buffer.from(
      'From: a@example.org\r\nTo: raw-keeper@tempmail.localhost\r\nSubject: =?ISO-8859-1?Q?caf=E9?=\r\n' +
        'Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\ncaf\xe9 \xa0 bytes\r\n',
      'latin1',
    );
    await sendRaw(smtp(), { from: 'a@example.org', to: ['raw-keeper@tempmail.localhost'] }, raw);
    const [item] = (await messagesOf(apiKey, email.id)).data;
    expect(item.subject).toBe('café');
    const source = await service.request(item.source_path, { key: apiKey });
    expect(source.status).toBe(200);
    expect(source.headers.get('content-type')).toBe('message/rfc822');
    expect(source.headers.get('content-disposition')).toMatch(/^attachment; filename="msg_[A-Za-z0-9_-]+\.eml"/);
    expect(createHash('sha256').update(Buffer.from(await source.arrayBuffer())).digest('hex')).toBe(
      createHash('sha256').update(raw).digest('hex'),
    );
    const { data } = await json(await service.request(`/v1/messages/${item.id}`, { key: apiKey }));
    expect(data.text).toContain('café');
  });

  it('delivers by the envelope: a BCC recipient gets the mail the headers never name', async () => {
    const { apiKey, email } = await service.inbox('hidden-copy');
    await sendMail(smtp(), {
      from: 'a@example.org',
      to: 'someone@example.net',
      bcc: 'hidden-copy@tempmail.localhost',
      subject: 'bcc',
      text: 'x',
    });
    const list = await messagesOf(apiKey, email.id);
    expect(list.data).toHaveLength(1);
    expect(list.data[0].to).toEqual(['someone@example.net']);
  });

  it('makes one message per address of ours, each visible only to its owner', async () => {
    const first = await service.inbox('split-one');
    const second = await service.inbox('split-two');
    await sendMail(smtp(), {
      from: 'a@example.org',
      to: ['split-one@tempmail.localhost', 'split-two@tempmail.localhost', 'elsewhere@example.net'],
      subject: 'to both',
      text: 'x',
    });
    const [one] = (await messagesOf(first.apiKey, first.email.id)).data;
    const [two] = (await messagesOf(second.apiKey, second.email.id)).data;
    expect(one.id).not.toBe(two.id);
    expect((await service.request(`/v1/messages/${two.id}`, { key: first.apiKey })).status).toBe(404);
    expect((await service.request(`/v1/messages/${one.id}/source`, { key: second.apiKey })).status).toBe(404);
    expect((await service.request(`/v1/emails/${second.email.id}/messages`, { key: first.apiKey })).status).toBe(404);
  });

  it('refuses an unknown, expired or foreign address at RCPT TO with 550 (on the stack: SES takes a covered domain\'s, and nothing is stored nor delivered)', async () => {
    const { email } = await service.inbox('soon-expired');
    const send = (to: string) => refusalCode(sendMail(smtp(), { from: 'a@example.org', to, subject: 's', text: 't' }));
    // Received once, the address's email is known to the intake: its end is still judged by the clock.
    expect(await send('soon-expired@tempmail.localhost')).toBeUndefined();
    const stored = await blobKeys(service, sesRawPrefix, 'mail/');
    expect(await send('never-issued@tempmail.localhost')).toBe(refusedAtRcpt);
    // A domain no receipt rule covers: SES refuses its recipients at RCPT TO as the intake does.
    expect(await send('someone@example.net')).toBe(550);
    service.clock.advance(Date.parse(email.expires_at) - service.clock.now().getTime());
    expect(await send('soon-expired@tempmail.localhost')).toBe(refusedAtRcpt);
    // Whether refused or taken, none of them left a raw copy, a body or a message (the expired
    // address's listing answers 404 now: its messages are read from storage).
    expect(addedSince(stored, await blobKeys(service, sesRawPrefix, 'mail/'))).toEqual([]);
    expect((await service.runtime.services.messages.listByEmail(email.id, { receivedAfter: email.expires_at, limit: 1 })).items).toEqual([]);
  });

  it('delivers nothing to an address whose domain was disabled between RCPT TO and the end of DATA', async () => {
    const domain = byRuntime({ 'npm start': 'zz-closing.test', 'start:stack': operatorDomainOnStack });
    await addDomain(domain, service.runtime.services);
    const { apiKey } = await service.account('paid');
    const created = await json(await service.createEmail(apiKey, { local_part: 'closing', domain }));
    expect(created.data.address).toBe(`closing@${domain}`);
    const { apiKey: openKey } = await service.account('paid');
    const open = (await json(await service.createEmail(openKey, { local_part: 'still-open', domain: testConfig.domains[0] }))).data;
    const { say, close } = smtpDialogue(smtp());
    try {
      expect(await say()).toMatch(/^220/);
      expect(await say('EHLO test.example')).toMatch(/^250/);
      expect(await say('MAIL FROM:<shop@example.org>')).toMatch(/^250/);
      expect(await say(`RCPT TO:<${created.data.address}>`)).toMatch(/^250/);
      expect(await say(`RCPT TO:<${open.address}>`)).toMatch(/^250/);
      // The operator turns the domain off while the mail is on its way (on the stack, before the
      // recipient filter runs at the end of DATA: the other recipient still lets the mail through).
      await disableDomain(domain, service.runtime.services);
      expect(await say('DATA')).toMatch(/^354/);
      expect(await say('Subject: after the switch\r\n\r\ntoo late\r\n.')).toMatch(/^250/);
      await say('QUIT');
    } finally {
      close();
    }
    expect((await messagesOf(apiKey, created.data.id)).data).toEqual([]);
    // The other recipient of the same transaction, on an open domain, still gets it.
    expect((await messagesOf(openKey, open.id)).data.map((item: { subject: string }) => item.subject)).toEqual(['after the switch']);

    // In AWS the SES parser runs after the recipient filter: a domain disabled in between is held the same way.
    await service.runtime.services.blobs.put(`${sesRawPrefix}closing-0001`, Buffer.from('Subject: via SES\r\n\r\nlate\r\n'));
    const { messageIds } = await createSesParser(() => service.runtime.services)({
      Records: [{ ses: { mail: { messageId: 'closing-0001', timestamp: service.clock.now().toISOString() }, receipt: { recipients: [created.data.address] } } }],
    });
    expect(messageIds).toEqual([]);
    expect((await messagesOf(apiKey, created.data.id)).data).toEqual([]);
  });

  it('refuses RCPT TO on a disabled domain within the documented window, and delivers nothing on it meanwhile', async () => {
    const domain = byRuntime({ 'npm start': 'zz-window.test', 'start:stack': operatorDomainOnStack });
    await addDomain(domain, service.runtime.services);
    const { apiKey } = await service.account('paid');
    const created = (await json(await service.createEmail(apiKey, { local_part: 'window', domain }))).data;
    // Each mail is processed before the next step: on the stack the parser runs after SES's 250,
    // and a domain disabled before it ran would drop a mail this test counts as delivered.
    const send = async (subject: string) => {
      const code = await refusalCode(sendMail(smtp(), { from: 'a@example.org', to: created.address, subject, text: 't' }));
      await service.settled();
      return code;
    };
    const subjects = async () => (await messagesOf(apiKey, created.id)).data.map((item: { subject: string }) => item.subject);
    expect(await send('before')).toBeUndefined();

    // Disabled elsewhere (the operator CLI is another process): RCPT TO may still answer from what
    // the intake read moments ago, but the delivery reads the switch and drops the mail. (On the
    // stack SES answers every RCPT TO of a covered domain; the recipient filter drops the mail.)
    await disableDomain(domain, service.runtime.services);
    expect(await send('within the window')).toBeUndefined();
    // That read taught the intake: the next RCPT TO is refused.
    expect(await send('after the delivery read')).toBe(refusedAtRcpt);
    expect(await subjects()).toEqual(['before']);

    // Enabled again, it receives at once: a domain that does not receive is never remembered.
    await addDomain(domain, service.runtime.services);
    expect(await send('enabled again')).toBeUndefined();
    // Disabled with no delivery in between: refused once the window has passed.
    await disableDomain(domain, service.runtime.services);
    service.clock.advance(domainMemoryMs);
    expect(await send('after the window')).toBe(refusedAtRcpt);
    // Both received at the same moment of the test clock: their order in the listing is not the point.
    expect((await subjects()).sort()).toEqual(['before', 'enabled again']);
  });

  it.each([
    ['text/html alone', (html: string) => `Content-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`],
    ['multipart/alternative without a text part', (html: string) => multipart('alternative', [`Content-Type: text/html; charset=utf-8\r\n\r\n${html}`])],
    ['multipart/related (HTML and an inline image)', (html: string) => multipart('related', [`Content-Type: text/html; charset=utf-8\r\n\r\n${html}`, inlineImage])],
    ['multipart/mixed (HTML and an attachment)', (html: string) => multipart('mixed', [`Content-Type: text/html; charset=utf-8\r\n\r\n${html}`, attachedFile])],
    [
      'multipart/mixed around multipart/related',
      (html: string) => multipart('mixed', [multipart('related', [`Content-Type: text/html; charset=utf-8\r\n\r\n${html}`, inlineImage], 'inner'), attachedFile]),
    ],
  ])('gives an HTML-only mail the plain-text rendering of its HTML as text, whatever the MIME structure: %s', async (_structure, body) => {
    const { apiKey, email } = await service.inbox(`html-only-${randomUUID().slice(0, 8)}`);
    const html = '<h1>Welcome</h1><p>Your code is <b>482913</b>.</p><p><a href="https://example.org/verify">Verify</a></p>';
    await sendRaw(smtp(), { from: 'a@example.org', to: [email.address] }, `From: a@example.org\r\nTo: ${email.address}\r\nSubject: html only\r\nMIME-Version: 1.0\r\n${body(html)}`);
    const [item] = (await messagesOf(apiKey, email.id)).data;
    const message = (await json(await service.request(`/v1/messages/${item.id}`, { key: apiKey }))).data;
    expect(message.html).toContain('482913');
    expect(message.text).toBe('WELCOME\n\nYour code is 482913.\n\nVerify [https://example.org/verify]');
  });

  it('keeps a mail sent again while its first copy lives once on npm start, where the same bytes are the same mail; on the stack SES makes it a mail of its own', async () => {
    const { apiKey, email } = await service.inbox(`again-${randomUUID().slice(0, 8)}`);
    const raw = `From: a@example.org\r\nTo: ${email.address}\r\nSubject: twice\r\nMIME-Version: 1.0\r\n${multipart('mixed', ['Content-Type: text/plain\r\n\r\nsee attached', attachedFile])}`;
    const send = () => sendRaw(smtp(), { from: 'a@example.org', to: [email.address] }, raw);
    await send();
    const before = await blobKeys(service, 'mail/', sesRawPrefix);
    await send();
    const added = addedSince(before, await blobKeys(service, 'mail/', sesRawPrefix));
    // Either way the raw copy is kept where SES keeps raw mail, under the prefix the sweeper looks at.
    const rawCopy = expect.stringMatching(/^inbound\/[^/]+$/);
    const expected = byRuntime({
      // The intake knows a mail by the SHA-256 of its bytes (docs/decisions.md: a mail delivered
      // again): the same bytes within the lifetime are the one mail sent again, parsed as they
      // arrived and nothing of them kept but their raw copy.
      'npm start': { added: [rawCopy], messages: 1 },
      // SES gives every receipt its own message id, and that id names the mail: the same bytes
      // sent again are a second mail, with its raw copy under the receipt rule's prefix and its
      // attachment under its own mail id. What AWS delivers again is the SES event (Lambda's
      // retry of the parser), which writes nothing twice (fault-matrix suite).
      'start:stack': { added: [rawCopy, expect.stringMatching(/^mail\/[^/]+\/att\/att_[A-Za-z0-9_-]+$/)], messages: 2 },
    });
    expect(added).toEqual(expected.added);
    expect((await messagesOf(apiKey, email.id)).data).toHaveLength(expected.messages);
  });

  onlyOn('npm start', 'the local intake knows a mail by the hash of its bytes; SES gives every receipt its own message id, so on the stack the same bytes are a new mail each time (the test above states both)', () => {
    it('shows a byte-identical mail sent again after the first copy expired, before the sweeper ran: once, under a new id', async () => {
      const { apiKey, email } = await service.inbox(`resent-${randomUUID().slice(0, 8)}`);
      const raw = `From: a@example.org\r\nTo: ${email.address}\r\nSubject: your code\r\nMessage-ID: <same@example.org>\r\n\r\ncode 123456\r\n`;
      const send = () => sendRaw(smtp(), { from: 'a@example.org', to: [email.address] }, raw);
      const listed = async () => (await messagesOf(apiKey, email.id)).data.map((item: { id: string }) => item.id);

      await send();
      const [first] = await listed();
      // Within the lifetime the same bytes are the same mail (an SMTP retry): one message.
      service.clock.advance(10 * 60 * 1000);
      await send();
      expect(await listed()).toEqual([first]);

      // The first copy has expired and is not swept yet: the same bytes are a new delivery.
      service.clock.advance(5 * 60 * 1000);
      expect(await listed()).toEqual([]);
      expect(await service.runtime.services.messages.get(first)).toBeDefined();
      await send();
      const [second] = await listed();
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      const message = (await json(await service.request(`/v1/messages/${second}`, { key: apiKey }))).data;
      expect(message.text).toBe('code 123456\n');
      expect(Date.parse(message.received_at)).toBe(service.clock.now().getTime());

      // And that new copy is again delivered once, also across the next quarter hour.
      for (const minutes of [1, 13]) {
        service.clock.advance(minutes * 60 * 1000);
        await send();
        expect(await listed()).toEqual([second]);
      }
      // Past its lifetime too, even after the sweeper removed the first copy.
      service.clock.advance(2 * 60 * 1000);
      await service.runtime.sweep();
      await send();
      const [third] = await listed();
      expect([first, second]).not.toContain(third);
      expect(await listed()).toHaveLength(1);
    });
  });

  // On the stack SES has answered 250 before its parser stores anything: a failed parse is
  // retried by Lambda, then kept in the dead-letter queue for `mail redrive` (redrive suite).
  onlyOn('npm start', "a storage fault injected into npm start's blob store, answered at the end of DATA", () => {
    it('answers 451 when the raw message cannot be stored, and the retry delivers it once', async () => {
      const { apiKey, email } = await service.inbox('retry-later');
      const mail = { from: 'a@example.org', to: 'retry-later@tempmail.localhost', subject: 'retry', text: 'x' };
      failBlobPuts = 1;
      expect(await refusalCode(sendMail(smtp(), mail))).toBe(451);
      expect((await messagesOf(apiKey, email.id)).data).toHaveLength(0);
      await sendMail(smtp(), mail);
      expect((await messagesOf(apiKey, email.id)).data).toHaveLength(1);
    });

    it('answers 451 when an attachment cannot be stored, instead of delivering the mail without it', async () => {
      const { apiKey, email } = await service.inbox('attachment-retry');
      const mail = {
        from: 'a@example.org',
        to: 'attachment-retry@tempmail.localhost',
        subject: 'with attachment',
        text: 'x',
        attachments: [{ filename: 'keep.txt', content: 'must not be lost' }],
      };
      failBlobPuts = 1;
      failingKeys = /\/att\//;
      try {
        expect(await refusalCode(sendMail(smtp(), mail))).toBe(451);
      } finally {
        failingKeys = /./;
      }
      expect((await messagesOf(apiKey, email.id)).data).toHaveLength(0);
      await sendMail(smtp(), mail);
      const [item] = (await messagesOf(apiKey, email.id)).data;
      expect(item.attachment_count).toBe(1);
    });
  });

  it('answers a message over 40 MB with 552', async () => {
    await service.inbox('too-big');
    const big = Buffer.alloc(41 * 1024 * 1024, 'a');
    const code = await refusalCode(
      sendRaw(smtp(), { from: 'a@example.org', to: ['too-big@tempmail.localhost'] }, Buffer.concat([Buffer.from('Subject: big\r\n\r\n'), big])),
    );
    expect(code).toBe(552);
  });
});

describe('reading messages', () => {
  it('pages newest first with signed cursors bound to the email and the limit', async () => {
    const { apiKey, email } = await service.inbox('pager');
    for (const subject of ['first', 'second', 'third']) {
      await sendMail(smtp(), { from: 'a@example.org', to: 'pager@tempmail.localhost', subject, text: subject });
      service.clock.advance(1000);
    }
    const page1 = await messagesOf(apiKey, email.id, '?limit=2');
    expect(page1.data.map((m: { subject: string }) => m.subject)).toEqual(['third', 'second']);
    expect(page1.pagination.has_more).toBe(true);
    const cursor = encodeURIComponent(page1.pagination.next_cursor);
    const page2 = await messagesOf(apiKey, email.id, `?limit=2&cursor=${cursor}`);
    expect(page2.data.map((m: { subject: string }) => m.subject)).toEqual(['first']);
    expect(page2.pagination).toEqual({ has_more: false });

    for (const query of [`?limit=3&cursor=${cursor}`, `?limit=2&cursor=${cursor}x`]) {
      const response = await service.request(`/v1/emails/${email.id}/messages${query}`, { key: apiKey });
      expect(response.status).toBe(400);
      expect((await json(response)).error.details).toEqual([expect.objectContaining({ field: 'cursor' })]);
    }
    const other = await service.createEmail(apiKey, {});
    const otherId = (await json(other)).data.id;
    const crossed = await service.request(`/v1/emails/${otherId}/messages?limit=2&cursor=${cursor}`, { key: apiKey });
    expect(crossed.status).toBe(400);
  });

  it('answers an attachment id of another message with 404, and a malformed one with 400', async () => {
    const { apiKey, email } = await service.inbox('attach-check');
    for (const name of ['a.txt', 'b.txt']) {
      await sendMail(smtp(), {
        from: 'a@example.org',
        to: 'attach-check@tempmail.localhost',
        subject: name,
        text: 'x',
        attachments: [{ filename: name, content: name }],
      });
    }
    const [second, first] = (await messagesOf(apiKey, email.id)).data;
    const firstMessage = (await json(await service.request(`/v1/messages/${first.id}`, { key: apiKey }))).data;
    const foreign = `/v1/messages/${second.id}/attachments/${firstMessage.attachments[0].id}`;
    expect((await service.request(foreign, { key: apiKey })).status).toBe(404);
    expect((await service.request(`/v1/messages/${second.id}/attachments/a.txt`, { key: apiKey })).status).toBe(400);
  });

  it('gives strong ETags and 304 on the list, the message, the source and the attachment', async () => {
    const { apiKey, email } = await service.inbox('etags');
    await sendMail(smtp(), {
      from: 'a@example.org',
      to: 'etags@tempmail.localhost',
      subject: 'tags',
      text: 'x',
      attachments: [{ filename: 'x.bin', content: Buffer.from([0, 1, 2, 255]) }],
    });
    const [item] = (await messagesOf(apiKey, email.id)).data;
    const message = (await json(await service.request(`/v1/messages/${item.id}`, { key: apiKey }))).data;
    for (const path of [`/v1/emails/${email.id}/messages`, `/v1/messages/${item.id}`, item.source_path, message.attachments[0].download_path]) {
      const tag = (await service.request(path, { key: apiKey })).headers.get('etag');
      expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await service.request(path, { key: apiKey, headers: { 'If-None-Match': tag! } });
      expect(again.status).toBe(304);
    }
  });

  it('forgets a message 15 minutes after receipt, and the sweeper deletes its blobs and item', async () => {
    const { apiKey, email } = await service.inbox('short-lived');
    await sendMail(smtp(), {
      from: 'a@example.org',
      to: 'short-lived@tempmail.localhost',
      subject: 'gone soon',
      text: 'x'.repeat(40_000),
      attachments: [{ filename: 'x.txt', content: 'attached' }],
    });
    const [item] = (await messagesOf(apiKey, email.id)).data;
    const message = (await json(await service.request(`/v1/messages/${item.id}`, { key: apiKey }))).data;
    expect(message.text).toHaveLength(40_000);
    const record = await service.runtime.services.messages.get(item.id);
    // Its text and attachment under its mail id, its raw copy under inbound/ (where SES keeps raw mail).
    const mailBlobs = () => blobKeys(service, `mail/${record!.mailId}/`, record!.rawKey);
    expect((await mailBlobs()).length).toBe(3);

    service.clock.advance(15 * 60 * 1000 - 1);
    expect((await service.request(`/v1/messages/${item.id}`, { key: apiKey })).status).toBe(200);
    service.clock.advance(1);
    expect((await messagesOf(apiKey, email.id)).data).toEqual([]);
    for (const path of [`/v1/messages/${item.id}`, item.source_path, message.attachments[0].download_path]) {
      expect((await service.request(path, { key: apiKey })).status).toBe(404);
    }
    expect(await mailBlobs()).toHaveLength(3);

    const swept = await service.runtime.sweep();
    expect(swept.messages).toBeGreaterThanOrEqual(1);
    expect(await mailBlobs()).toEqual([]);
    expect(await service.runtime.services.messages.get(item.id)).toBeUndefined();
  });
});
