import type { components } from './generated/openapi';

type Schemas = components['schemas'];

/** An email's id: branded by its prefix, so that an address or a message id is not taken for one. */
export type EmailId = `eml_${string}`;
/** A message's id. */
export type MessageId = `msg_${string}`;
/** An attachment's id. */
export type AttachmentId = `att_${string}`;

/** A reserved address (`GET /v1/emails/{email_id}`). */
export type Email = Omit<Schemas['Email'], 'id'> & { id: EmailId };
/** One element of a message listing: a message without its bodies and attachment list. */
export type MessageListItem = Omit<Schemas['MessageListItem'], 'id' | 'email_id'> & { id: MessageId; email_id: EmailId };
export type Attachment = Omit<Schemas['Attachment'], 'id'> & { id: AttachmentId };
/** A whole message: `text`, sanitized `html`, attachment metadata. */
export type Message = Omit<Schemas['Message'], 'id' | 'email_id' | 'attachments'> & { id: MessageId; email_id: EmailId; attachments: Attachment[] };
export type Domain = Schemas['Domain'];
/** The usage record: `plan` decides `allowance_mode` (`free`/`lifetime`, `paid`/`balance`). */
export type Usage = Schemas['Usage'];
/** A page's pagination, discriminated by `has_more`: only `{ has_more: true }` holds a `next_cursor`. */
export type Pagination = Schemas['Pagination'];
export type CreateEmailRequest = Schemas['CreateEmailRequest'];

const idPatterns = { eml: /^eml_[A-Za-z0-9_-]{10,64}$/, msg: /^msg_[A-Za-z0-9_-]{10,64}$/, att: /^att_[A-Za-z0-9_-]{10,64}$/ } as const;

function checkedId<T extends string>(prefix: keyof typeof idPatterns, value: string, what: string): T {
  if (!idPatterns[prefix].test(value)) throw new TypeError(`Not ${what} id (${prefix}_ and 10 to 64 of A-Z, a-z, 0-9, _ and -): ${JSON.stringify(value.slice(0, 80))}`);
  return value as T;
}

/**
 * An email id from text (a command line, the environment), checked against the document's
 * pattern; a TypeError otherwise, before any request.
 *
 * @example
 * const inbox = await tempmail.getEmail(asEmailId(process.env.TEMPMAIL_ID!));
 */
export function asEmailId(value: string): EmailId {
  return checkedId('eml', value, 'an email');
}

/** A message id from text, checked as `asEmailId` checks an email id. */
export function asMessageId(value: string): MessageId {
  return checkedId('msg', value, 'a message');
}

/** An attachment id from text, checked as `asEmailId` checks an email id. */
export function asAttachmentId(value: string): AttachmentId {
  return checkedId('att', value, 'an attachment');
}

/** One page of a listing, and the cursor of the next one. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** Query of a list operation; `cursor` is the previous page's `next_cursor`, unchanged. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
}

/** A downloaded file (raw source or attachment). */
export interface FileBody {
  bytes: Uint8Array;
  contentType: string;
  /** The file name from `Content-Disposition`, when one is given. */
  filename: string | undefined;
}
