/** One entry of an error's `details`: which field was wrong, and why. */
export interface ErrorDetail {
  field?: string;
  reason: string;
}

/**
 * An error answer of the service, in the contract's error shape: the HTTP status, the stable
 * `code`, the human `message`, the `requestId` (the same as the `X-Request-Id` header; quote it
 * when you report a problem) and the field `details` of a 400 or 422.
 */
export class TempmailError extends Error {
  override name = 'TempmailError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

/**
 * The account's request allowance is used up (a 429 whose `RateLimit-Remaining` is 0). Waiting
 * does not help: a free account's 100 requests never renew, and a paid balance grows only by a
 * grant. Reported at once, never retried.
 */
export class AllowanceExhaustedError extends TempmailError {
  override name = 'AllowanceExhaustedError';
}

/** The short-window limit still refused the request after the client's own retries. */
export class RateLimitedError extends TempmailError {
  override name = 'RateLimitedError';
  constructor(
    status: number,
    code: string,
    message: string,
    requestId: string | undefined,
    details: ErrorDetail[],
    /** The last `Retry-After`, in seconds. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(status, code, message, requestId, details);
  }
}

/** The service could not be reached (connection refused, reset, DNS) after the client's retries. */
export class TempmailNetworkError extends Error {
  override name = 'TempmailNetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** `waitForMessage` reached its deadline without a matching message. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
  constructor(
    readonly emailId: string,
    readonly timeoutMs: number,
    /** Charged list (and message) requests the wait made. */
    readonly requests: number,
    /** Subjects of the messages that arrived but did not match, newest first (to explain a miss). */
    readonly seenSubjects: string[],
  ) {
    super(
      `No matching message arrived at ${emailId} within ${timeoutMs} ms (${requests} requests; ` +
        (seenSubjects.length ? `did not match: ${seenSubjects.map((subject) => JSON.stringify(subject)).join(', ')})` : 'none arrived)'),
    );
  }
}
