import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { MailParser, type AddressObject, type AttachmentStream, type Headers, type MessageText } from 'mailparser';
import { newId } from '../core/ids';
import type { MailLimitReason } from '../core/errors';
import type { BlobStore } from '../core/ports/blob-store';
import type { AttachmentRecord } from '../core/ports/message-store';
import { textOfHtml } from './text-of-html';

/** What a received mail holds, with its attachments already stored as blobs. */
export interface ParsedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  /** The HTML as sent: sanitize before it leaves the service. */
  html: string;
  attachments: AttachmentRecord[];
  /** Set when the parser gave up part way: what came before is kept. */
  failure?: string;
  /**
   * Set when the mail passed a limit of `mimeLimits`: attachments or parts beyond it
   * (`mime_limit`), or everything after a header block over its size (`header_limit`), were not
   * read. Never silent: the caller refuses the mail or reports the truncation.
   */
  truncated?: MailLimitReason;
}

/**
 * What one mail may hold: attachments stored (each is one blob write and one list entry) and
 * MIME parts in all (the parser's node limit, against deep or empty structures). Far below what
 * the 40 MB cap would allow (hundreds of thousands of minimal parts), far above real mail.
 */
export const mimeLimits: Readonly<MimeLimits> = Object.freeze({ attachments: 1000, parts: 2000, headerBytes: 1024 * 1024 });

export interface MimeLimits {
  /** Attachments stored; later ones are drained unstored. */
  attachments: number;
  /** MIME parts (nodes) the parser reads before it stops. */
  parts: number;
  /** The bytes of one header block (the message's or a part's) the parser reads before it stops. */
  headerBytes: number;
}

/**
 * Field limits that keep one message within a DynamoDB item whatever the headers hold, in UTF-8
 * bytes (what DynamoDB counts), not characters. A media type longer than RFC 6838 allows
 * (127 + 1 + 127) is not one.
 */
export const fieldLimits = Object.freeze({
  subjectBytes: 2048,
  fromBytes: 1024,
  toAddresses: 100,
  addressBytes: 320,
  filenameBytes: 255,
  contentTypeBytes: 255,
});

/**
 * Parses a raw message as it streams in, storing each attachment (inline `cid:` parts too) as its
 * own blob under a generated key while the parse goes on, so memory stays flat for large mail.
 * A malformed message is parsed as far as it goes; the failure is reported, never thrown.
 */
export async function parseMail(
  raw: Readable,
  deps: { blobs: BlobStore; keyPrefix: string; limits?: Readonly<MimeLimits>; textOf?: (html: string) => string | Promise<string> },
): Promise<ParsedMail> {
  const limits = deps.limits ?? mimeLimits;
  // mailparser's own HTML-to-text conversion is off: it copies `data:` image URLs into the text and
  // cannot be given options; `textOfHtml` renders every HTML-only mail instead.
  const parser = new MailParser({
    skipHtmlToText: true,
    skipImageLinks: true,
    skipTextLinks: true,
    maxChildNodes: limits.parts,
    maxHeadSize: limits.headerBytes,
  });
  const parsed: ParsedMail = { from: '', to: [], subject: '', text: '', html: '', attachments: [] };
  /** The attachment being stored, and the parser error that ended it, if one did. */
  const state: { reading?: AttachmentStream; interruptedBy?: Error } = {};
  parser.on('headers', (headers: Headers) => Object.assign(parsed, fromHeaders(headers)));
  parser.on('error', (error: Error) => {
    // An attachment being stored when the parser stops would never end: close it, so that its
    // write fails (a premature close) and the parse reports the parser's error. Destroyed
    // without an error, the stream cannot raise one that nobody listens to.
    if (!state.reading) return;
    state.interruptedBy = error;
    state.reading.content.destroy();
  });
  raw.on('error', (error) => parser.destroy(error));
  raw.pipe(parser);
  try {
    for await (const part of parser as AsyncIterable<AttachmentStream | MessageText>) {
      if (part.type === 'attachment') {
        if (parsed.attachments.length < limits.attachments) {
          state.reading = part;
          try {
            parsed.attachments.push(await storeAttachment(part, deps));
          } finally {
            state.reading = undefined;
          }
        } else {
          // Released unread, the part is drained; parsing goes on so the bodies are still read.
          parsed.truncated = 'mime_limit';
          part.release?.();
        }
      } else {
        parsed.text = withoutNul(part.text ?? '');
        parsed.html = withoutNul(typeof part.html === 'string' ? part.html : '');
      }
    }
  } catch (caught) {
    // A write that failed because the parser stopped mid-attachment is the parser's failure.
    const error = caught instanceof StorageFailure && state.interruptedBy ? state.interruptedBy : caught;
    // Not the mail's fault: the caller must not acknowledge it (SMTP 451, SES retry).
    if (error instanceof StorageFailure) throw error.cause;
    // The parser's own limits (parts, a header block's size) stop it with EMAXLEN.
    if ((error as { code?: string }).code === 'EMAXLEN') parsed.truncated = limitReason(error as Error);
    else parsed.failure = (error as Error).name || 'Error';
  } finally {
    // A parser that stopped early leaves the rest of the raw message unread: its file or
    // connection is released now, before the caller answers, never by the garbage collector.
    await release(raw);
  }
  if (parsed.text !== '' || parsed.html === '') return parsed;
  const text = await (deps.textOf ?? textOfHtml)(parsed.html);
  // Rendered inline, the text and the sanitizing after it each take the whole HTML synchronously:
  // the event loop runs in between, so that one blocks at a time (the local intake renders a large
  // HTML in a thread instead, `textOf`).
  await new Promise<void>((resolve) => setImmediate(resolve));
  return { ...parsed, text };
}

/** Ends a stream that may still be open and waits until it has let go of what it reads from. */
async function release(stream: Readable): Promise<void> {
  if (stream.closed) return;
  stream.destroy();
  await finished(stream).catch(() => undefined);
}

/**
 * Which of the parser's limits stopped it. mailsplit tags both with the code EMAXLEN and tells
 * them apart only in its message ("Max header size for a MIME node exceeded", "Max allowed
 * child nodes exceeded"); the unit test of this module pins both against the installed version.
 */
function limitReason(error: Error): MailLimitReason {
  return /header/i.test(error.message) ? 'header_limit' : 'mime_limit';
}

/** A blob that could not be written: unlike a parse failure, it must fail the whole ingest. */
class StorageFailure extends Error {}

async function storeAttachment(part: AttachmentStream, deps: { blobs: BlobStore; keyPrefix: string }): Promise<AttachmentRecord> {
  const attachmentId = newId('att');
  const blobKey = `${deps.keyPrefix}/att/${attachmentId}`;
  try {
    const { size } = await deps.blobs
      .put(blobKey, part.content, { contentType: 'application/octet-stream' })
      .catch((error: unknown) => {
        throw new StorageFailure('attachment not stored', { cause: error });
      });
    return {
      attachmentId,
      filename: cleanFilename(part.filename),
      contentType: cleanContentType(part.contentType),
      sizeBytes: size,
      blobKey,
    };
  } finally {
    part.release?.();
  }
}

function fromHeaders(headers: Headers): Pick<ParsedMail, 'from' | 'to' | 'subject'> {
  const subject = headers.get('subject');
  const from = headers.get('from') as AddressObject | undefined;
  const to = headers.get('to') as AddressObject | AddressObject[] | undefined;
  const addresses = (Array.isArray(to) ? to : to ? [to] : [])
    .flatMap((object) => object.value)
    .flatMap((entry) => (entry.group ? entry.group : [entry]))
    .map((entry) => (entry.address ?? '').toLowerCase())
    .filter((address) => address !== '');
  return {
    subject: clean(typeof subject === 'string' ? subject : '', fieldLimits.subjectBytes),
    from: clean(from?.text ?? '', fieldLimits.fromBytes),
    to: addresses.slice(0, fieldLimits.toAddresses).map((address) => clean(address, fieldLimits.addressBytes)),
  };
}

/** NUL bytes survive decoding but no client expects them in a JSON string body. */
function withoutNul(body: string): string {
  return body.replace(/\u0000/g, '');
}

/** Removes control characters (CR and LF included) and cuts to at most `maxBytes` of UTF-8. */
function clean(value: string, maxBytes: number): string {
  return cutToBytes(value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ''), maxBytes);
}

/** The longest prefix within `maxBytes` of UTF-8 that ends between two characters (never inside a surrogate pair). */
export function cutToBytes(value: string, maxBytes: number): string {
  if (Buffer.byteLength(value, 'utf8') <= maxBytes) return value;
  let bytes = 0;
  let end = 0;
  for (const character of value) {
    const size = Buffer.byteLength(character, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += character.length;
  }
  return value.slice(0, end);
}

function cleanFilename(name: string | undefined): string {
  return clean((name ?? '').trim(), fieldLimits.filenameBytes).trim();
}

function cleanContentType(type: string | undefined): string {
  const value = (type ?? '').toLowerCase().trim();
  return value.length <= fieldLimits.contentTypeBytes && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(value)
    ? value
    : 'application/octet-stream';
}
