import { createHash } from 'node:crypto';
import { containsApiKey } from './api-keys';
import { Conflict, InvalidRequest, PolicyViolation, type ServiceError } from './errors';
import type { Refusal } from './ports/idempotency-store';

/** Idempotency records are kept 24 hours (DESIGN: gaps, idempotency record). */
export const idempotencyLifetimeMs = 24 * 60 * 60 * 1000;
/** How long one attempt owns a record: longer than any handler can run. */
export const idempotencyLeaseMs = 15_000;

const idempotencyKeyPattern = /^[\x21-\x7E]{16,255}$/;

/**
 * Validates the `Idempotency-Key` header (contract: POST /v1/emails): printable ASCII without
 * spaces, 16 to 255 characters, and never a secret such as an API key.
 */
export function parseIdempotencyKey(value: string | undefined): string {
  const field = 'Idempotency-Key';
  if (value === undefined || value === '') {
    throw new InvalidRequest('The Idempotency-Key header is required.', [{ field, reason: 'required' }]);
  }
  if (!idempotencyKeyPattern.test(value)) {
    throw new InvalidRequest('The Idempotency-Key header is invalid.', [
      { field, reason: 'must be 16 to 255 printable ASCII characters without spaces' },
    ]);
  }
  if (containsApiKey(value)) {
    throw new InvalidRequest('The Idempotency-Key header must not contain an API key.', [
      { field, reason: 'must not contain a secret or API key' },
    ]);
  }
  return value;
}

/** The refusals a create can meet after its record is written; each is charged and final for its request. */
export type RecordedRefusal = Conflict | PolicyViolation;

/** True for a refusal that every duplicate of the request must be answered with again. */
export function isRecordedRefusal(error: unknown): error is RecordedRefusal {
  return error instanceof Conflict || error instanceof PolicyViolation;
}

/** A refusal in the form the idempotency record keeps. */
export function toRefusal(error: RecordedRefusal): Refusal {
  return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
}

/** The same error again, from a stored refusal: same status, code, message and details. */
export function refusalError(refusal: Refusal): ServiceError {
  switch (refusal.code) {
    case 'address_unavailable':
    case 'idempotency_key_reused':
      return new Conflict(refusal.code, refusal.message);
    case 'policy_violation':
      return new PolicyViolation(refusal.message, refusal.details ?? []);
    default:
      throw new Error(`idempotency record holds an unknown refusal ${refusal.code}`);
  }
}

/** Where a key's record lives: scoped to the account and the operation; the key itself is hashed. */
export function idempotencyRecordKey(accountId: string, operation: string, idempotencyKey: string): string {
  return `${accountId}#${operation}#${sha256(idempotencyKey)}`;
}

/** The hash by which two requests are equivalent: SHA-256 of their canonical JSON (sorted keys). */
export function requestHash(request: Record<string, unknown>): string {
  return sha256(canonicalJson(request));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
