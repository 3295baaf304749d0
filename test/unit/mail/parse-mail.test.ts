import { Readable } from 'node:stream';
import type { BlobStore } from '../../../lambdas/core/ports/blob-store';
import { cutToBytes, mimeLimits, parseMail } from '../../../lambdas/mail/parse-mail';

/** A blob store that reads each body to its end, as the directory and S3 stores do. */
function readingBlobs(): BlobStore & { keys: string[] } {
  const keys: string[] = [];
  return {
    keys,
    async put(key, body) {
      let size = 0;
      if (Buffer.isBuffer(body)) size = body.length;
      else for await (const chunk of body) size += (chunk as Buffer).length;
      keys.push(key);
      return { size };
    },
    get: async () => undefined,
    delete: async () => undefined,
    deleteMany: async () => undefined,
    async *list() {},
  };
}

/** The raw mail in 64 KB chunks, as a stored blob is read back. */
function rawStream(raw: string): Readable {
  const bytes = Buffer.from(raw);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
  return Readable.from(chunks);
}

function mail(textParts: number, attachments: number, attachmentBytes = 10): string {
  const b = 'parts';
  let raw = `From: a@example.org\r\nSubject: parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="${b}"\r\n\r\n`;
  raw += `--${b}\r\nContent-Type: text/plain\r\n\r\nbody\r\n`.repeat(textParts);
  for (let n = 0; n < attachments; n++) {
    raw += `--${b}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="f${n}"\r\n\r\n${'x'.repeat(attachmentBytes)}\r\n`;
  }
  return `${raw}--${b}--\r\n`;
}

describe('parseMail at the MIME limits', () => {
  it(`stores the first ${mimeLimits.attachments} attachments, reads the body, and reports the truncation`, async () => {
    const blobs = readingBlobs();
    const parsed = await parseMail(rawStream(mail(1, 1500)), { blobs, keyPrefix: 'mail/m' });
    expect(parsed.truncated).toBe('mime_limit');
    expect(parsed.attachments).toHaveLength(mimeLimits.attachments);
    expect(blobs.keys).toHaveLength(mimeLimits.attachments);
    expect(parsed.text).toContain('body');
  });

  it('ends, reporting the truncation, when the part limit stops the parser in the middle of an attachment', async () => {
    // With the attachment limit out of the way, the parser's part limit trips while an
    // attachment is being stored; its content stream must end then, or the parse never ends.
    const blobs = readingBlobs();
    const limits = { ...mimeLimits, attachments: 10_000, parts: 1400 };
    const parsed = await parseMail(rawStream(mail(1, 1450)), { blobs, keyPrefix: 'mail/m', limits });
    expect(parsed.truncated).toBe('mime_limit');
    expect(parsed.failure).toBeUndefined();
    expect(parsed.attachments.length).toBeGreaterThan(0);
    expect(parsed.attachments.length).toBeLessThan(1400);
  }, 10_000);

  it('tells a header block over its size from too many parts: the two limits the parser stops at', async () => {
    const limits = { ...mimeLimits, headerBytes: 4096 };
    const headers = `From: a@example.org\r\nX-Long: ${'a'.repeat(5000)}\r\n\r\nbody\r\n`;
    const byHeaders = await parseMail(rawStream(headers), { blobs: readingBlobs(), keyPrefix: 'mail/m', limits });
    expect(byHeaders.truncated).toBe('header_limit');
    const byParts = await parseMail(rawStream(mail(1, 60)), { blobs: readingBlobs(), keyPrefix: 'mail/m', limits: { ...limits, parts: 50 } });
    expect(byParts.truncated).toBe('mime_limit');
  });

  it('cuts to a byte bound between characters, never inside one', () => {
    expect(cutToBytes('a€b', 3)).toBe('a');
    expect(cutToBytes('a€b', 4)).toBe('a€');
    expect(cutToBytes('😀😀', 7)).toBe('😀');
    expect(cutToBytes('plain', 255)).toBe('plain');
  });
});

describe('parseMail and the link finder', () => {
  it('turns a plain-text part into HTML without looking for links (text links stay off: the bundles build the finder on first use)', async () => {
    const b = 'mixed';
    const raw =
      `From: a@example.org\r\nSubject: links\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="${b}"\r\n\r\n` +
      `--${b}\r\nContent-Type: text/plain\r\n\r\nsee https://example.com/a and www.example.org\r\n` +
      `--${b}\r\nContent-Type: text/html\r\n\r\n<p>html part</p>\r\n--${b}--\r\n`;
    const parsed = await parseMail(rawStream(raw), { blobs: readingBlobs(), keyPrefix: 'mail/m' });
    expect(parsed.html).toContain('see https://example.com/a and www.example.org');
    expect(parsed.html).toContain('<p>html part</p>');
    expect(parsed.html).not.toContain('<a');
  });
});
