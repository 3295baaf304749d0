import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidRequest } from './errors';

/** What a cursor is bound to (DESIGN: cursor): the account, the route, the path id and the limit. */
export interface CursorContext {
  accountId: string;
  route: string;
  pathId: string;
  limit: number;
}

/** A cursor is valid for one hour after it was issued. */
export const cursorLifetimeSeconds = 3600;

interface CursorPayload {
  /** Account, route, path id, limit: the query context. */
  c: [string, string, string, number];
  /** Where the next page starts; meaningful to the route that issued it. */
  p: string;
  /** Expiry, Unix seconds. */
  e: number;
}

/**
 * Signs a continuation position into an opaque cursor bound to its query context
 * (contract: Pagination 3). HMAC-SHA256 over the payload; the client must not read it.
 */
export function signCursor(secret: string, context: CursorContext, position: string, now: Date): string {
  const payload: CursorPayload = {
    c: [context.accountId, context.route, context.pathId, context.limit],
    p: position,
    e: Math.floor(now.getTime() / 1000) + cursorLifetimeSeconds,
  };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(secret, body)}`;
}

/**
 * The position inside a cursor, or 400 `invalid_request` on field `cursor` when the cursor is
 * forged, altered, expired or bound to another query context (contract: Pagination 4).
 */
export function readCursor(secret: string, cursor: string, context: CursorContext, now: Date): string {
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined || !sameMac(mac(secret, body), signature)) throw invalidCursor();
  const payload = parsePayload(body);
  const expected = [context.accountId, context.route, context.pathId, context.limit];
  if (!payload || payload.c.some((value, index) => value !== expected[index])) throw invalidCursor();
  if (payload.e <= Math.floor(now.getTime() / 1000)) throw invalidCursor();
  return payload.p;
}

function mac(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64url');
}

function sameMac(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function parsePayload(body: string): CursorPayload | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const payload = value as CursorPayload;
    const valid =
      Array.isArray(payload?.c) && payload.c.length === 4 && typeof payload.p === 'string' && Number.isInteger(payload.e);
    return valid ? payload : undefined;
  } catch {
    return undefined;
  }
}

function invalidCursor(): InvalidRequest {
  return new InvalidRequest('The cursor is invalid, expired or does not match this query.', [
    { field: 'cursor', reason: 'invalid or does not match the query context' },
  ]);
}
