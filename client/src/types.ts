import type { components } from './generated/openapi';

type Schemas = components['schemas'];

/** A reserved address (`GET /v1/emails/{email_id}`). */
export type Email = Schemas['Email'];
/** One element of a message listing: a message without its bodies and attachment list. */
export type MessageListItem = Schemas['MessageListItem'];
/** A whole message: `text`, sanitized `html`, attachment metadata. */
export type Message = Schemas['Message'];
export type Attachment = Schemas['Attachment'];
export type Domain = Schemas['Domain'];
export type Usage = Schemas['Usage'];
export type Pagination = Schemas['Pagination'];
export type CreateEmailRequest = Schemas['CreateEmailRequest'];

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
