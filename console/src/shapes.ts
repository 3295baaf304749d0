import type { components } from '../../client/src/generated/openapi';

type Schemas = components['schemas'];

/*
 * The `/v1` shapes come from the OpenAPI document, through the client package's generated types.
 * The console's own routes (`/console/v1`) are not part of the public document, so their two
 * shapes are written here, as the console API answers them.
 */
export type Email = Schemas['Email'];
export type MessageItem = Schemas['MessageListItem'];
export type Message = Schemas['Message'];
export type Pagination = Schemas['Pagination'];

/** A page of a listing: `/v1` messages, or the console's own inbox list (same pagination). */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** `GET /console/v1/account`: the signed-in account and its allowance. */
export interface Account {
  id: string;
  email: string | null;
  plan: string;
  allowance_mode: string;
  used_requests: number;
  remaining_requests: number;
  additional_requests: number;
}

/** One key of `GET /console/v1/keys`; never its secret, which only a create shows, once. */
export interface Key {
  id: string;
  label: string;
  prefix: string;
  status: string;
  created_at: string;
  last_used_at: string | null;
}
