import type { components } from './generated/openapi';
import type { EmailId } from './types';
import { describeRejection, type WaitReport } from './wait-report';

type Schemas = components['schemas'];

/** Every `error.code` the OpenAPI document gives, taken from its error schemas. */
export type ErrorCode = { [Name in keyof Schemas]: Schemas[Name] extends { error: { code: infer Code } } ? Code : never }[keyof Schemas];

/** The code of an answer not in the contract's shape (a proxy in between): `http_` and its status. */
export type ForeignErrorCode = `http_${number}`;

/** The document's error codes, one each (a test holds the list to the document). */
export const errorCodes = [
  'invalid_request',
  'invalid_api_key',
  'forbidden',
  'resource_not_found',
  'address_unavailable',
  'idempotency_key_reused',
  'payload_too_large',
  'policy_violation',
  'rate_limit_exceeded',
  'internal_error',
  'service_unavailable',
  'request_timeout',
  'request_header_fields_too_large',
] as const satisfies readonly ErrorCode[];

// A code the document adds and the list above lacks fails the type check here.
const everyCodeListed: Record<Exclude<ErrorCode, (typeof errorCodes)[number]>, never> = {};
void everyCodeListed;

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
    /** One of the document's codes; `http_<status>` for an answer not in the contract's shape. */
    readonly code: ErrorCode | ForeignErrorCode,
    message: string,
    readonly requestId: string | undefined,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

/** 400 `invalid_request`. */
export class InvalidRequestError extends TempmailError {
  override name = 'InvalidRequestError';
}
/** 401: the key is missing, unknown or revoked. */
export class InvalidApiKeyError extends TempmailError {
  override name = 'InvalidApiKeyError';
}
/** 403. */
export class ForbiddenError extends TempmailError {
  override name = 'ForbiddenError';
}
/** 404 `resource_not_found`. */
export class NotFoundError extends TempmailError {
  override name = 'NotFoundError';
}
/** 409. */
export class ConflictError extends TempmailError {
  override name = 'ConflictError';
}
/** 413. */
export class PayloadTooLargeError extends TempmailError {
  override name = 'PayloadTooLargeError';
}
/** 422. */
export class PolicyViolationError extends TempmailError {
  override name = 'PolicyViolationError';
}
/** 500. */
export class InternalError extends TempmailError {
  override name = 'InternalError';
}
/** 503. */
export class ServiceUnavailableError extends TempmailError {
  override name = 'ServiceUnavailableError';
}

/**
 * An answer the contract never gives: a 2xx whose body is not the documented JSON (not JSON, not
 * an object with `data`, a required field missing, larger than any answer of the service), or a
 * redirect. Something stands between the client and the service (a proxy, a captive portal, a
 * load balancer sending http to https), or the base URL is not the service's. Never retried.
 */
export class UnexpectedResponseError extends TempmailError {
  override name = 'UnexpectedResponseError';
}

/**
 * A 3xx answer. The contract never redirects, so the client follows none: following would send
 * the API key (or a create's body, turned into a GET by a 302) to wherever `Location` points, and
 * take that host's answer for the service's. `location` is where it pointed, resolved against the
 * request's URL (undefined when the answer named none or a browser hid it).
 */
export class RedirectError extends UnexpectedResponseError {
  override name = 'RedirectError';
  constructor(
    status: number,
    message: string,
    requestId: string | undefined,
    readonly location: string | undefined,
  ) {
    super(status, `http_${status}`, message, requestId);
  }
}

/**
 * Which limit a 429 met, from its `details[0].reason`: the used-up allowance, the key's or the
 * account's short window, the console's hourly key changes, or the API gateway's or the
 * firewall's own throttle. Undefined for a 429 without one (a service older than the reasons).
 */
export type RateLimitReason = 'allowance_exhausted' | 'short_window_key' | 'short_window_account' | 'key_changes' | 'gateway_throttle' | 'firewall_throttle';

const rateLimitReasons: readonly string[] = [
  'allowance_exhausted',
  'short_window_key',
  'short_window_account',
  'key_changes',
  'gateway_throttle',
  'firewall_throttle',
] satisfies RateLimitReason[];

/** The reason a 429's details give, if it is one the client knows. */
export function rateLimitReasonOf(details: readonly ErrorDetail[]): RateLimitReason | undefined {
  const reason = details.find((detail) => rateLimitReasons.includes(detail.reason))?.reason;
  return reason as RateLimitReason | undefined;
}

/** The short-window limit still refused the request after the client's own retries. */
export class RateLimitedError extends TempmailError {
  override name = 'RateLimitedError';
  constructor(
    status: number,
    code: ErrorCode | ForeignErrorCode,
    message: string,
    requestId: string | undefined,
    details: ErrorDetail[],
    /** The last `Retry-After`, in seconds. */
    readonly retryAfter: number | undefined,
  ) {
    super(status, code, message, requestId, details);
  }

  /** Which limit was met, read from the answer's `details` (never from its message). */
  get reason(): RateLimitReason | undefined {
    return rateLimitReasonOf(this.details);
  }

  /** The former name of `retryAfter`. */
  get retryAfterSeconds(): number | undefined {
    return this.retryAfter;
  }
}

/**
 * The account's request allowance is used up (a 429 whose reason is `allowance_exhausted`, or,
 * from a service that gives no reason, whose `RateLimit-Remaining` is 0). Waiting
 * does not help: a free account's 100 requests never renew, and a paid balance grows only by a
 * grant. Reported at once, never retried.
 */
export class AllowanceExhaustedError extends RateLimitedError {
  override name = 'AllowanceExhaustedError';
}

const byStatus: Record<number, typeof TempmailError> = {
  400: InvalidRequestError,
  401: InvalidApiKeyError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: PolicyViolationError,
  500: InternalError,
  503: ServiceUnavailableError,
};

/** The typed error of an answer: one class per documented status, the base class for any other. */
export function errorFor(status: number, code: ErrorCode | ForeignErrorCode, message: string, requestId: string | undefined, details: ErrorDetail[], retryAfter: number | undefined, remaining: string | null): TempmailError {
  if (status === 429) {
    const reason = rateLimitReasonOf(details);
    const exhausted = reason === undefined ? remaining?.trim() === '0' : reason === 'allowance_exhausted';
    const Type = exhausted ? AllowanceExhaustedError : RateLimitedError;
    return new Type(status, code, message, requestId, details, retryAfter);
  }
  const Type = byStatus[status] ?? TempmailError;
  return new Type(status, code, message, requestId, details);
}

/** The service could not be reached (connection refused, reset, DNS, a request time-out) after the client's retries. */
export class TempmailNetworkError extends Error {
  override name = 'TempmailNetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A wait reached its deadline (`reason: 'deadline'`) or its request budget (`'budget'`) without the
 * messages it waited for. Its message explains the miss: the criteria, the deadline, the polls
 * and requests spent, how many mails arrived in the window, and for each that did not match the
 * first criterion it failed, and how many expired meanwhile. It never holds a key or a mail body.
 */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
  /** Subjects of the messages that arrived but did not match, newest first. */
  readonly seenSubjects: string[];
  constructor(
    readonly emailId: EmailId,
    readonly timeoutMs: number,
    /** HTTP requests the wait sent (list pages and whole-message reads). */
    readonly requests: number,
    readonly report: WaitReport,
    readonly reason: 'deadline' | 'budget' = 'deadline',
    options?: { cause?: unknown },
  ) {
    const { rejected } = report;
    const lines = rejected.slice(-20).map((rejection) => `\n  ${describeRejection(rejection)}`).join('');
    super(
      `No matching message arrived at ${emailId} ${reason === 'budget' ? `before the wait's request budget was spent` : `within ${timeoutMs} ms`} ` +
        `(waited for: ${report.criteria}; deadline ${report.deadline}; ${report.polls} polls, ${requests} requests; ` +
        `${report.arrived} arrived in the window, ${rejected.length} did not match, ${report.expired} expired meanwhile)` +
        (options?.cause instanceof Error ? `; last error: ${options.cause.message}` : '') +
        (rejected.length > 20 ? `\n  … ${rejected.length - 20} earlier ones not listed` : '') +
        lines,
      options,
    );
    this.seenSubjects = rejected.map((rejection) => rejection.subject).reverse();
  }
}

/**
 * A matching message arrived where none (or no more) should: `expectNoMessage` saw one in its
 * window, or `waitForMessages({ exact: true })` saw more than its `count`. Names each such mail
 * by subject, sender and received time (never its body).
 */
export class UnexpectedMessageError extends Error {
  override name = 'UnexpectedMessageError';
  constructor(
    readonly emailId: EmailId,
    /** The mails that should not have arrived. */
    readonly messages: { id: string; subject: string; from: string; receivedAt: string }[],
    expectation: string,
  ) {
    super(`${expectation}, but ${messages.map((message) => `${JSON.stringify(message.subject)} from ${JSON.stringify(message.from)} arrived at ${message.receivedAt}`).join('; ')} (${emailId})`);
  }
}

/**
 * Whether an error is the service's answer, and with `code`, that it carries that code (narrowed).
 *
 * @example
 * try { await tempmail.createEmail({ local_part: 'signup' }); }
 * catch (error) { if (isErrorCode(error, 'address_unavailable')) { ... } else throw error; }
 */
export function isErrorCode<Code extends ErrorCode>(error: unknown, code: Code): error is TempmailError & { readonly code: Code } {
  return error instanceof TempmailError && error.code === code;
}

/** 404 `resource_not_found`: absent, expired or another account's (all look the same). */
export const isNotFound = (error: unknown): error is NotFoundError => error instanceof NotFoundError;
/** 400 `invalid_request`, with `details` naming each field. */
export const isInvalidRequest = (error: unknown): error is InvalidRequestError => error instanceof InvalidRequestError;
/** 401 `invalid_api_key`. */
export const isInvalidApiKey = (error: unknown): error is InvalidApiKeyError => error instanceof InvalidApiKeyError;
/** 409: `address_unavailable` or `idempotency_key_reused`. */
export const isConflict = (error: unknown): error is ConflictError => error instanceof ConflictError;
/** 422 `policy_violation`. */
export const isPolicyViolation = (error: unknown): error is PolicyViolationError => error instanceof PolicyViolationError;
/** 429 after the client's retries: the short window, or (see `isAllowanceExhausted`) the used-up allowance. */
export const isRateLimited = (error: unknown): error is RateLimitedError => error instanceof RateLimitedError;
/** 429 with `RateLimit-Remaining: 0`: waiting does not help. */
export const isAllowanceExhausted = (error: unknown): error is AllowanceExhaustedError => error instanceof AllowanceExhaustedError;
/** A wait that reached its deadline or its request budget. */
export const isWaitTimeout = (error: unknown): error is WaitTimeoutError => error instanceof WaitTimeoutError;
/** A matching message where none (or no more) should be. */
export const isUnexpectedMessage = (error: unknown): error is UnexpectedMessageError => error instanceof UnexpectedMessageError;
/** The service could not be reached. */
export const isNetworkError = (error: unknown): error is TempmailNetworkError => error instanceof TempmailNetworkError;
