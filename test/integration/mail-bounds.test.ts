import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { rawMailPrefix } from '../../lambdas/mail/raw-mail-prefix';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { contractFetch } from '../support/contract';
import { byRuntime, onlyOn, serviceStartTimeoutMs, testRuntime } from '../support/test-runtime';
import { refusalCode, sendRaw } from '../support/smtp-client';
import { wrappedBlobStore } from '../support/wrapped-blob-store';

let service: TestService;
/** How many message writes DynamoDB refuses as invalid, as it does an item over 400 KB. */
let refuseMessageWrites = 0;
/** Called once a raw copy is stored whole: the intake has then received every byte of the DATA. */
let onRawStored: (key: string) => void = () => undefined;

/** Makes the real SDK client answer chosen message writes with DynamoDB's ValidationException. */
function refuseAsInvalid(client: DynamoDBDocumentClient) {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const table = String((args.input as { TableName?: string }).TableName ?? '');
      if (refuseMessageWrites > 0 && context.commandName === 'PutItemCommand' && table.endsWith('-messages')) {
        refuseMessageWrites -= 1;
        throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
          name: 'ValidationException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'testRefuseAsInvalid' },
  );
}

beforeAll(async () => {
  service = await startTestService(
    {},
    {
      instrumentDynamoDb: refuseAsInvalid,
      wrapBlobs: (blobs) =>
        wrappedBlobStore(blobs, {
          put: async (key, body, options) => {
            const stored = await blobs.put(key, body, options);
            if (key.startsWith(rawMailPrefix)) onRawStored(key);
            return stored;
          },
        }),
    },
  );
}, serviceStartTimeoutMs);
afterAll(() => service.close());

/**
 * The time-out of a test whose one mail is heavy to store. On start:stack its every storage call
 * is the parser function's, over the network and judged against its role, as in AWS: the mail of
 * 900 attachments is 900 judged object writes, which took 15 s on a loaded 2-core machine.
 */
const heavyMailTimeoutMs = byRuntime({ 'npm start': 30_000, 'start:stack': 60_000 });

const smtp = () => service.runtime.smtpPort;
const bytes = (value: string) => Buffer.byteLength(value, 'utf8');


/** Sends raw MIME to one of our addresses; resolves with the SMTP reply code (250 when accepted). */
async function deliver(address: string, raw: string | Buffer): Promise<number> {
  return (await refusalCode(sendRaw(smtp(), { from: 'a@example.org', to: [address] }, raw))) ?? 250;
}

async function onlyMessage(apiKey: string, emailId: string) {
  const list = await json(await service.request(`/v1/emails/${emailId}/messages`, { key: apiKey }));
  expect(list.data).toHaveLength(1);
  const read = await service.request(`/v1/messages/${list.data[0].id}`, { key: apiKey });
  expect(read.status).toBe(200);
  return { item: list.data[0], message: (await json(read)).data };
}

function multipart(headers: string, parts: { headers: string; body: string }[]): string {
  const boundary = 'b0undary-x';
  return (
    `From: a@example.org\r\n${headers}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="${boundary}"\r\n\r\n` +
    parts.map((part) => `--${boundary}\r\n${part.headers}\r\n${part.body}\r\n`).join('') +
    `--${boundary}--\r\n`
  );
}

describe('a mail whose headers would not fit one storage item', () => {
  it('stores a part with a 420 KB Content-Type whole: 250, readable, the type recorded as octet-stream', async () => {
    const { apiKey, email } = await service.inbox('long-type');
    const raw = multipart(`To: ${email.address}\r\nSubject: long type\r\n`, [
      { headers: 'Content-Type: text/plain\r\n', body: 'hello' },
      {
        headers: `Content-Type: application/${'x'.repeat(420 * 1024)}\r\nContent-Disposition: attachment; filename="a.bin"\r\n`,
        body: 'attached bytes',
      },
    ]);
    expect(await deliver(email.address, raw)).toBe(250);
    const { item, message } = await onlyMessage(apiKey, email.id);
    expect(item.attachment_count).toBe(1);
    expect(message.text).toContain('hello');
    expect(message.attachments).toEqual([expect.objectContaining({ filename: 'a.bin', content_type: 'application/octet-stream' })]);
    const download = await service.request(message.attachments[0].download_path, { key: apiKey });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('attached bytes');
  });

  it('stores a mail of 900 attachments with long multi-byte names whole: every attachment listed, a spread across the list read back', async () => {
    const { apiKey, email } = await service.inbox('many-names');
    // 250 characters and about 330 UTF-8 bytes each: a name's bound is counted in bytes.
    const names = Array.from({ length: 900 }, (_, n) => `${String(n).padStart(3, '0')}-${'ü€'.repeat(20)}${'n'.repeat(197)}.txt`);
    const raw = multipart(
      `To: ${email.address}\r\nSubject: ${'Grüße '.repeat(400)}\r\n`,
      [
        { headers: 'Content-Type: text/plain; charset=utf-8\r\n', body: 'body '.repeat(6000) },
        ...names.map((name, n) => ({
          headers: `Content-Type: text/plain; charset=utf-8\r\nContent-Disposition: attachment; filename="${name}"\r\n`,
          body: `attachment ${n}`,
        })),
      ],
    );
    expect(bytes(raw)).toBeGreaterThan(350 * 1024);
    expect(await deliver(email.address, raw)).toBe(250);

    const { item, message } = await onlyMessage(apiKey, email.id);
    // The list went to the blob store beside the bodies; the item keeps where it is.
    expect((await service.runtime.services.messages.get(item.id))!.attachments).toEqual({
      blobKey: expect.stringMatching(/^mail\/[^/]+\/attachments$/),
      sizeBytes: expect.any(Number),
    });
    expect(item.attachment_count).toBe(900);
    expect(message.attachments).toHaveLength(900);
    expect(bytes(message.subject)).toBeLessThanOrEqual(2048);
    expect(message.subject.startsWith('Grüße Grüße')).toBe(true);
    expect(message.text).toHaveLength(30_000);
    message.attachments.forEach((attachment: { filename: string; size_bytes: number }, n: number) => {
      // Cut at a character boundary to at most 255 bytes: a prefix of the name sent, never a broken character.
      expect(bytes(attachment.filename)).toBeLessThanOrEqual(255);
      expect(attachment.filename.length).toBeGreaterThan(100);
      expect(names[n]!.startsWith(attachment.filename)).toBe(true);
      expect(attachment.size_bytes).toBe(bytes(`attachment ${n}`));
    });
    // Every attachment is listed with its name and size above; its bytes are read back for a spread
    // across the whole list (the first, every ninth, the last). Each download reads the stored list
    // of 900 again, so reading all 900 cost 30 s of one core and proved the same path 900 times.
    // They are read ten at a time: each is a request of its own, in no order the promise depends on.
    const spread = [...new Set([0, ...Array.from({ length: 100 }, (_, k) => k * 9), 899])];
    const downloaded = new Map<number, { status: number; text: string }>();
    const waiting = [...spread];
    const reader = async () => {
      for (let n = waiting.shift(); n !== undefined; n = waiting.shift()) {
        const download = await service.request(message.attachments[n].download_path, { key: apiKey });
        downloaded.set(n, { status: download.status, text: await download.text() });
      }
    };
    await Promise.all(Array.from({ length: 10 }, reader));
    expect([...downloaded.keys()].sort((a, b) => a - b)).toEqual(spread);
    for (const [n, download] of downloaded) expect(download).toEqual({ status: 200, text: `attachment ${n}` });
  }, heavyMailTimeoutMs);

  it('bounds from, subject and to in UTF-8 bytes, cutting only between characters', async () => {
    const { apiKey, email } = await service.inbox('wide-bounds');
    const longAddress = `${'ä'.repeat(200)}@example.org`;
    const raw = Buffer.from(
      `From: "${'€'.repeat(600)}" <sender@example.org>\r\nTo: ${email.address}, ${longAddress}\r\n` +
        `Subject: ${'😀'.repeat(700)}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhi\r\n`,
      'utf8',
    );
    expect(await deliver(email.address, raw)).toBe(250);
    const { message } = await onlyMessage(apiKey, email.id);
    expect(bytes(message.from)).toBeLessThanOrEqual(1024);
    expect(message.from).toMatch(/^"?€+$/u);
    expect(bytes(message.subject)).toBeLessThanOrEqual(2048);
    expect(message.subject).toBe('😀'.repeat(512));
    expect(message.to[0]).toBe(email.address);
    expect(bytes(message.to[1])).toBeLessThanOrEqual(320);
    expect(message.to[1]).toBe('ä'.repeat(160));
  });
});

describe('a mail whose bodies would not fit one buffered response', () => {
  /** Base64 in lines of 76, as a sender's MIME library writes a large part. */
  const base64Lines = (value: string) => Buffer.from(value, 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');

  it('reads with 200 and cut bodies that end with the documented marker; the source reads whole', async () => {
    const { accountId, apiKey, email } = await service.inbox('huge-bodies');
    // A 7 MB text of quotes, backslashes and multi-byte characters (each costs 2 to 4 bytes once
    // escaped twice), and a 7.5 MB HTML body whose middle is a 5 MB inline image.
    const text = `"Grüße" \\ line €\n`.repeat(350_000);
    const paragraphs = (n: number) => `<p title="t&amp;t">paragraph ${n} &amp; "more" text</p>\n`;
    const image = `<img src="data:image/png;base64,${'iVBORw0KGgo'.repeat(480_000)}" alt="big">\n`;
    const html =
      Array.from({ length: 10_000 }, (_, n) => paragraphs(n)).join('') + image + Array.from({ length: 30_000 }, (_, n) => paragraphs(n)).join('');
    expect(bytes(text)).toBeGreaterThan(7_000_000);
    expect(bytes(html)).toBeGreaterThan(7_000_000);
    const boundary = 'alt-b0undary';
    const raw = Buffer.from(
      `From: a@example.org\r\nTo: ${email.address}\r\nSubject: huge bodies\r\nMIME-Version: 1.0\r\n` +
        `Content-Type: multipart/alternative; boundary="${boundary}"\r\n\r\n` +
        `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Lines(text)}\r\n` +
        `--${boundary}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Lines(html)}\r\n` +
        `--${boundary}--\r\n`,
      'utf8',
    );
    expect(await deliver(email.address, raw)).toBe(250);

    const before = await service.remaining(accountId);
    const list = await json(await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey }));
    expect(list.data).toHaveLength(1);
    const read = await service.request(`/v1/messages/${list.data[0].id}`, { key: apiKey });
    expect(read.status).toBe(200);
    const body = Buffer.from(await read.arrayBuffer());
    // Lambda refuses a buffered response over 6 MB; the read stays under it with margin.
    expect(body.length).toBeLessThan(5_000_000);
    const { data: message } = JSON.parse(body.toString('utf8'));

    const textMarker = `\n\n[Truncated: the whole message is its source, ${message.source_path}]`;
    const htmlMarker = `<p>[Truncated: the whole message is its source, ${message.source_path}]</p>`;
    expect(message.text.endsWith(textMarker)).toBe(true);
    expect(text.startsWith(message.text.slice(0, -textMarker.length))).toBe(true);
    expect(message.text.length).toBeGreaterThan(500_000);
    expect(message.html.endsWith(htmlMarker)).toBe(true);
    expect(message.html).toContain('paragraph 9999 ');
    // The image is cut away whole, never left as a broken data URL.
    expect(message.html).not.toContain('data:');
    // The list and the read, each charged once.
    expect(await service.remaining(accountId)).toBe(before - 2);

    const source = await service.request(message.source_path, { key: apiKey });
    expect(source.status).toBe(200);
    expect(Buffer.from(await source.arrayBuffer()).equals(raw)).toBe(true);
  }, heavyMailTimeoutMs);
});

describe('hostile HTML at ingest', () => {
  const htmlOnly = (address: string, subject: string, html: string) =>
    `From: a@example.org\r\nTo: ${address}\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`;

  it('delivers 300,000 nested elements (3.3 MB) with their text, the HTML nested no deeper than 512 levels', async () => {
    const { apiKey, email } = await service.inbox('deep-html');
    const depth = 300_000;
    const html = `<p>Your code is 482913.</p>${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}<p>after</p>`;
    expect(await deliver(email.address, htmlOnly(email.address, 'deep', html))).toBe(250);
    const { message } = await onlyMessage(apiKey, email.id);
    expect(message.text).toBe('Your code is 482913.\n\ndeep text\n\nafter');
    expect(message.html).toContain('deep text');
    expect(message.html.match(/<div>/g)).toHaveLength(512);
    expect(message.html.match(/<\/div>/g)).toHaveLength(512);
  });

  /**
   * Rendering hostile HTML must never stall the API. Where it runs differs by runtime, as AWS
   * differs from the local intake: `npm start` renders in the intake's process before its 250, so
   * requests sent once the intake holds every byte of the DATA are answered before that 250; SES
   * answers 250 once the raw mail is in the bucket and the parser function renders it afterwards,
   * apart from the API's functions, so requests sent after the 250 are answered while the mail is
   * not yet listed, and it is listed once the parser is done.
   */
  it('keeps answering HTTP while a 1 MB hostile HTML mail is rendered (npm start: before its 250; start:stack: before the parser stores it)', async () => {
    const { apiKey, email } = await service.inbox('busy-render');
    const depth = 50_000;
    const html = `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}${'<p>paragraph of text</p>'.repeat(20_000)}`;
    const events: string[] = [];
    if (testRuntime === 'npm start') {
      // Three requests one after another, from when the intake holds every byte of the DATA. On a
      // loop held by the rendering, at most one slips in between its two steps before the 250.
      const requests = new Promise<void>((resolve, reject) => {
        onRawStored = () => {
          onRawStored = () => undefined;
          void (async () => {
            for (let sent = 0; sent < 3; sent += 1) {
              const answer = await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey });
              await answer.arrayBuffer();
              events.push(`http ${answer.status}`);
            }
          })().then(resolve, reject);
        };
      });
      const code = await deliver(email.address, htmlOnly(email.address, 'busy', html));
      events.push(`smtp ${code}`);
      await requests;
      expect(events).toEqual(['http 200', 'http 200', 'http 200', 'smtp 250']);
    } else {
      // Straight to the API, not through `service.request`, which waits for the parser first.
      const listed = async () => {
        const answer = await contractFetch(`${service.runtime.apiUrl}/v1/emails/${email.id}/messages`, { headers: { Authorization: `Bearer ${apiKey}` } });
        return `http ${answer.status} listing ${(await json(answer)).data.length}`;
      };
      // The list's function and the authorizer are started first: a cold start is not the API's answer time.
      expect(await listed()).toBe('http 200 listing 0');
      events.push(`smtp ${await deliver(email.address, htmlOnly(email.address, 'busy', html))}`);
      const parsed = service.settled().then(() => events.push('parsed'));
      const answers = await Promise.all([listed(), listed(), listed()]);
      events.push(...answers);
      await parsed;
      expect(events).toEqual(['smtp 250', 'http 200 listing 0', 'http 200 listing 0', 'http 200 listing 0', 'parsed']);
    }
    const { message } = await onlyMessage(apiKey, email.id);
    expect(message.text).toContain('deep\n\nparagraph of text');
  });

  it('renders an HTML-only mail as text without the bytes of its inline data: image or data: link', async () => {
    const { apiKey, email } = await service.inbox('data-image');
    const image = Buffer.alloc(1024 * 1024, 7).toString('base64');
    const html =
      `<p>Hello <img alt="Logo" src="data:image/png;base64,${image}"> and <a href="data:text/plain;base64,${image}">the file</a>.</p>` +
      `<p><a href="https://example.org/verify">Verify</a></p>`;
    expect(await deliver(email.address, htmlOnly(email.address, 'inline image', html))).toBe(250);
    const { message } = await onlyMessage(apiKey, email.id);
    expect(message.text).toBe('Hello Logo and the file.\n\nVerify [https://example.org/verify]');
  });
});

describe('a permanent storage fault', () => {
  // The fault is injected into npm start's DynamoDB client. On the stack, as in AWS, SES answers
  // 250 once the raw mail is in the bucket, before the parser runs: a fault there is no SMTP reply
  // but the parser's failed invocation, retried, then its dead letter.
  onlyOn('npm start', "the fault is injected into npm start's storage client; on the stack SES has answered 250 before the parser runs", () => {
    it('is answered 554 with a reason, never the temporary 451, and nothing is listed', async () => {
      const { apiKey, email } = await service.inbox('never-storable');
      refuseMessageWrites = 1;
      const raw = `From: a@example.org\r\nTo: ${email.address}\r\nSubject: refused\r\n\r\nx\r\n`;
      let reply: { responseCode?: number; response?: string } = {};
      try {
        await sendRaw(smtp(), { from: 'a@example.org', to: [email.address] }, raw);
      } catch (error) {
        reply = error as typeof reply;
      }
      expect(refuseMessageWrites).toBe(0);
      expect(reply.responseCode).toBe(554);
      expect(reply.response).toMatch(/^554 5\.3\.4 .*cannot be stored/);
      const list = await json(await service.request(`/v1/emails/${email.id}/messages`, { key: apiKey }));
      expect(list.data).toEqual([]);
      expect(service.logger.lines.some((line) => line.message === 'mail refused for good' && line.reason === 'storage_validation')).toBe(true);
    });
  });
});
