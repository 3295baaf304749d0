import {
  Conflict,
  Forbidden,
  InvalidApiKey,
  InvalidIdentityToken,
  InvalidRequest,
  NotFound,
  PayloadTooLarge,
  PolicyViolation,
  RateLimited,
  ServiceError,
  Unavailable,
  type ErrorDetail,
} from '../core/errors';
import type { ApiResult } from './api-types';

/** The contract's error body: exactly one property, `error`. */
export interface ErrorBody {
  error: { code: string; message: string; request_id: string; details?: ErrorDetail[] };
}

const statusOf = new Map<Function, number>([
  [InvalidRequest, 400],
  [InvalidApiKey, 401],
  [InvalidIdentityToken, 401],
  [Forbidden, 403],
  [NotFound, 404],
  [Conflict, 409],
  [PayloadTooLarge, 413],
  [PolicyViolation, 422],
  [RateLimited, 429],
  [Unavailable, 503],
]);

/** Middy's own deadline guard throws this name when the handler would outlive the Lambda. */
const deadlineErrorName = 'TimeoutError';

/**
 * The one mapping from a thrown error to the contract's status, code and headers. A typed
 * service error keeps its code; a deadline becomes 503; anything else is 500 `internal_error`,
 * never an empty success.
 */
export function errorResult(error: unknown, requestId: string): ApiResult {
  if (error instanceof ServiceError) {
    const status = statusOf.get(error.constructor) ?? 500;
    const retryAfter =
      error instanceof RateLimited || error instanceof Unavailable ? Math.max(1, Math.ceil(error.retryAfterSeconds)) : 0;
    return {
      status,
      body: errorBody(error.code, error.message, requestId, error.details),
      headers: retryAfter ? { 'Retry-After': String(retryAfter) } : {},
    };
  }
  if ((error as { name?: string } | null)?.name === deadlineErrorName) {
    return errorResult(new Unavailable(1), requestId);
  }
  return {
    status: 500,
    body: errorBody('internal_error', 'The service failed before completing the request. Retry with backoff.', requestId),
  };
}

export function errorBody(code: string, message: string, requestId: string, details?: ErrorDetail[]): ErrorBody {
  return { error: { code, message, request_id: requestId, ...(details ? { details } : {}) } };
}
