import type { Clock } from './ports/clock';
import { readCursor, signCursor, type CursorContext } from './cursors';

/** The contract's pagination object; `next_cursor` is present only when `has_more` is true. */
export interface Pagination {
  has_more: boolean;
  next_cursor?: string;
}

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

/** List `limit` bounds (DESIGN: gaps, list limit). */
export const listLimit = { default: 20, min: 1, max: 100 } as const;

export interface PageRequest {
  context: CursorContext;
  cursor: string | undefined;
  cursorSecret: string;
  clock: Clock;
}

/**
 * One page of an ordered list keyed by a string: the items after the cursor's position, at most
 * `limit` of them, and a signed cursor for the rest (contract: Pagination 1–4).
 */
export function pageAfter<T>(sorted: readonly T[], keyOf: (item: T) => string, request: PageRequest): Page<T> {
  const { context, cursor } = request;
  const after = positionOf(cursor, context, request);
  const start = after === undefined ? 0 : sorted.findIndex((item) => keyOf(item) > after);
  const rest = start < 0 ? [] : sorted.slice(start);
  const items = rest.slice(0, context.limit);
  const last = items[items.length - 1];
  const next = rest.length > items.length && last ? keyOf(last) : undefined;
  return pageOf(items, next, context, request);
}

/**
 * One page of a list that storage pages itself: the cursor's position goes to `fetch`, and the
 * position `fetch` reports for the next page comes back signed (contract: Pagination 1–4).
 */
export async function pageAfterPosition<T>(
  context: CursorContext,
  cursor: string | undefined,
  deps: { cursorSecret: string; clock: Clock },
  fetch: (after: string | undefined) => Promise<{ items: T[]; next?: string }>,
): Promise<Page<T>> {
  const page = await fetch(positionOf(cursor, context, deps));
  return pageOf(page.items, page.next, context, deps);
}

/** The position a cursor holds, or 400 on field `cursor`; undefined for the first page. */
function positionOf(cursor: string | undefined, context: CursorContext, deps: { cursorSecret: string; clock: Clock }) {
  return cursor === undefined ? undefined : readCursor(deps.cursorSecret, cursor, context, deps.clock.now());
}

/** A page with its pagination object: a signed cursor only when there is a next position. */
function pageOf<T>(
  items: T[],
  next: string | undefined,
  context: CursorContext,
  deps: { cursorSecret: string; clock: Clock },
): Page<T> {
  if (next === undefined) return { items, pagination: { has_more: false } };
  return { items, pagination: { has_more: true, next_cursor: signCursor(deps.cursorSecret, context, next, deps.clock.now()) } };
}
