import type { Readable } from 'node:stream';
import { boundMessageBodies, messageReadBudgetBytes } from './bound-message-bodies';
import type { Clock } from './ports/clock';
import { getEmail } from './emails';
import { NotFound } from './errors';
import { pageAfterPosition } from './pagination';
import type { BlobStore } from './ports/blob-store';
import type { EmailStore } from './ports/email-store';
import type { AttachmentRecord, MessageRecord, MessageStore, MessageSummary, StoredAttachments, StoredBody } from './ports/message-store';

/** The contract's Attachment metadata. */
export interface AttachmentResource {
  id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  expires_at: string;
  download_path: string;
}

/** A message list item (DESIGN: gaps): the Message without text, html and attachments. */
export interface MessageListItem {
  id: string;
  email_id: string;
  from: string;
  to: string[];
  subject: string;
  received_at: string;
  expires_at: string;
  size_bytes: number;
  attachment_count: number;
  source_path: string;
}

/** The contract's Message: every field always present, `text`/`html` empty when absent. */
export interface MessageResource extends MessageListItem {
  text: string;
  html: string;
  attachments: AttachmentResource[];
}

export interface MessageDeps {
  emails: EmailStore;
  messages: MessageStore;
  blobs: BlobStore;
  clock: Clock;
  cursorSecret: string;
  messageTtlSeconds: number;
}

/**
 * The messages of an email the account owns, newest first, that have not expired
 * (contract: GET /v1/emails/{email_id}/messages). Expiry is decided by the clock, whatever the
 * storage's TTL has done.
 */
export async function listMessages(
  query: { accountId: string; emailId: string; limit: number; cursor: string | undefined },
  deps: Omit<MessageDeps, 'blobs'>,
) {
  await getEmail(query.accountId, query.emailId, deps);
  const now = deps.clock.now();
  const receivedAfter = new Date(now.getTime() - deps.messageTtlSeconds * 1000).toISOString();
  const page = await pageAfterPosition(
    { accountId: query.accountId, route: 'listMessages', pathId: query.emailId, limit: query.limit },
    query.cursor,
    { cursorSecret: deps.cursorSecret, clock: deps.clock },
    (after) => deps.messages.listByEmail(query.emailId, { receivedAfter, after, limit: query.limit }),
  );
  return { items: page.items.filter((message) => isUnexpired(message, now)).map(toListItem), pagination: page.pagination };
}

/** A message of the account's own email, within its 15 minutes; anything else is the one 404. */
export async function getMessage(accountId: string, messageId: string, deps: Pick<MessageDeps, 'messages' | 'clock'>) {
  const message = await deps.messages.get(messageId);
  if (!message || message.accountId !== accountId || !isUnexpired(message, deps.clock.now())) throw new NotFound();
  return message;
}

/**
 * The full Message resource, with its bodies and attachment list read back from wherever they
 * were stored. Bodies are cut to fit a buffered Lambda response (`messageReadBudgetBytes` for
 * the whole `{ data: Message }` as the runtime serializes it): everything else is counted
 * exactly, and `text` and `html` share what is left, a cut one ending with its truncation
 * marker. The raw source is always served whole.
 */
export async function toMessageResource(message: MessageRecord, blobs: BlobStore): Promise<MessageResource> {
  const [text, html, attachments] = await Promise.all([
    readBody(message.text, blobs, messageReadBudgetBytes),
    readBody(message.html, blobs, messageReadBudgetBytes),
    readAttachments(message.attachments, blobs),
  ]);
  const resource = {
    ...toListItem(message),
    text: '',
    html: '',
    attachments: attachments.map((attachment) => toAttachmentResource(message, attachment)),
  };
  const rest = Buffer.byteLength(JSON.stringify(JSON.stringify({ data: resource })), 'utf8');
  return { ...resource, ...boundMessageBodies({ text, html }, messageReadBudgetBytes - rest, resource.source_path) };
}

/** The raw source of a message, byte for byte (contract: GET /v1/messages/{id}/source). */
export async function openSource(accountId: string, messageId: string, deps: Pick<MessageDeps, 'messages' | 'blobs' | 'clock'>) {
  const message = await getMessage(accountId, messageId, deps);
  return { message, blob: await openBlob(message.rawKey, deps.blobs) };
}

/**
 * An attachment of a message, found by its opaque id only: a filename never selects the stored
 * object, and an id of another message's attachment is the same 404.
 */
export async function openAttachment(
  accountId: string,
  messageId: string,
  attachmentId: string,
  deps: Pick<MessageDeps, 'messages' | 'blobs' | 'clock'>,
) {
  const message = await getMessage(accountId, messageId, deps);
  const attachments = await readAttachments(message.attachments, deps.blobs);
  const attachment = attachments.find((candidate) => candidate.attachmentId === attachmentId);
  if (!attachment) throw new NotFound();
  return { attachment, blob: await openBlob(attachment.blobKey, deps.blobs) };
}

export function isUnexpired(message: Pick<MessageSummary, 'expiresAt'>, now: Date): boolean {
  return now.getTime() < Date.parse(message.expiresAt);
}

function toListItem(message: MessageSummary): MessageListItem {
  return {
    id: message.messageId,
    email_id: message.emailId,
    from: message.from,
    to: message.to,
    subject: message.subject,
    received_at: message.receivedAt,
    expires_at: message.expiresAt,
    size_bytes: message.sizeBytes,
    attachment_count: message.attachmentCount,
    source_path: `/v1/messages/${message.messageId}/source`,
  };
}

function toAttachmentResource(message: MessageRecord, attachment: AttachmentRecord): AttachmentResource {
  return {
    id: attachment.attachmentId,
    filename: attachment.filename,
    content_type: attachment.contentType,
    size_bytes: attachment.sizeBytes,
    expires_at: message.expiresAt,
    download_path: `/v1/messages/${message.messageId}/attachments/${attachment.attachmentId}`,
  };
}

/**
 * A body, or at least its first `maxBytes` bytes and one more character: a character costs at
 * least its UTF-8 bytes once serialized, so what lies beyond could never be answered anyway,
 * and a 40 MB body is not read whole to be cut to a few.
 */
async function readBody(body: StoredBody, blobs: BlobStore, maxBytes: number): Promise<string> {
  if ('inline' in body) return body.inline;
  return readBlobText(body.blobKey, blobs, maxBytes + 4);
}

async function readAttachments(attachments: StoredAttachments, blobs: BlobStore): Promise<AttachmentRecord[]> {
  if ('inline' in attachments) return attachments.inline;
  return JSON.parse(await readBlobText(attachments.blobKey, blobs)) as AttachmentRecord[];
}

async function readBlobText(key: string, blobs: BlobStore, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of (await openBlob(key, blobs)).stream) {
    chunks.push(chunk as Buffer);
    read += (chunk as Buffer).length;
    // Leaving the loop closes the stream: the rest of the blob is never fetched.
    if (read > maxBytes) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An open blob: its bytes as a stream, its size and its strong entity tag. */
export interface OpenBlob {
  stream: Readable;
  size: number;
  etag: string;
}

/** A blob a live message refers to; its absence means the message is being swept: 404. */
async function openBlob(key: string, blobs: BlobStore): Promise<OpenBlob> {
  const read = await blobs.get(key);
  if (!read || read.notModified) throw new NotFound();
  return { stream: read.body, size: read.size, etag: read.etag };
}
