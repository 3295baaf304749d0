/**
 * Typed failures of the service's rules. The core throws these; one middleware maps each class
 * to the contract's status, code and headers. Nothing matches on message strings.
 */

/** One element of the contract's `error.details`. */
export interface ErrorDetail {
  reason: string;
  field?: string;
}

export abstract class ServiceError extends Error {
  abstract readonly code: string;
  readonly details?: ErrorDetail[];

  constructor(message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = new.target.name;
    if (details && details.length > 0) this.details = details;
  }
}

/** 400: invalid syntax or parameters, including an invalid cursor. Charged. */
export class InvalidRequest extends ServiceError {
  readonly code = 'invalid_request';
  constructor(message: string, details?: ErrorDetail[]) {
    super(message, details);
  }
}

/** 401: missing, malformed, revoked or environment-invalid key. Not charged. */
export class InvalidApiKey extends ServiceError {
  readonly code = 'invalid_api_key';
  constructor() {
    super('The API key is missing, malformed, revoked or not valid for this environment.');
  }
}

/**
 * 401 on the console API: the identity token is missing, malformed, expired, of another issuer
 * or audience, or its signature does not verify against the issuer's keys.
 */
export class InvalidIdentityToken extends ServiceError {
  readonly code = 'invalid_token';
  constructor() {
    super('The identity token is missing, expired or not valid for this console. Sign in again.');
  }
}

/** 403: an authenticated account that is not entitled to the operation. Not charged. */
export class Forbidden extends ServiceError {
  readonly code = 'forbidden';
  constructor() {
    super('This account is not entitled to this operation.');
  }
}

/** 404: absent, expired and unowned resources all look the same. Charged. */
export class NotFound extends ServiceError {
  readonly code = 'resource_not_found';
  constructor() {
    super('The requested resource does not exist.');
  }
}

/**
 * 409: a conflict with an existing reservation, an idempotency key reused with another request,
 * or an account that already holds its most active keys (console: revoke one first).
 */
export class Conflict extends ServiceError {
  constructor(
    readonly code: 'address_unavailable' | 'idempotency_key_reused' | 'key_limit_reached',
    message: string,
  ) {
    super(message);
  }
}

/** 413: a body larger than the service accepts. Not charged. */
export class PayloadTooLarge extends ServiceError {
  readonly code = 'payload_too_large';
  constructor(limitBytes: number) {
    super(`The request body exceeds ${limitBytes} bytes.`);
  }
}

/** 422: valid syntax that violates address or domain policy. Charged. */
export class PolicyViolation extends ServiceError {
  readonly code = 'policy_violation';
  constructor(message: string, details: ErrorDetail[]) {
    super(message, details);
  }
}

/**
 * Which limit a 429 met, as its one `details[].reason`: the contract keeps one code for all of
 * them, and a client must tell a used-up allowance (wait for a grant) from a short window (wait
 * a minute) without reading the message.
 */
export type RateLimitReason = 'allowance_exhausted' | 'short_window_key' | 'short_window_account' | 'key_changes';

/**
 * The reason of a 429 made in front of the service's functions, never thrown by the core: the API
 * gateway's own throttle (lib/gateway-responses.ts) and the firewall's rate rule (lib/web-acl.ts).
 * Named here beside the core's so the contract's list is read in one place.
 */
export type FrontRateLimitReason = 'gateway_throttle' | 'firewall_throttle';

/** 429: the short-window limit, the allowance or the console's key-change limit was reached. Not charged. */
export class RateLimited extends ServiceError {
  readonly code = 'rate_limit_exceeded';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    readonly reason: RateLimitReason,
  ) {
    super(message, [{ reason }]);
  }
}

/** 503: a required dependency is temporarily unavailable. Not charged. */
export class Unavailable extends ServiceError {
  readonly code = 'service_unavailable';
  constructor(
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super('A required dependency is temporarily unavailable. Retry with backoff.');
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * A write that storage refuses for good (DynamoDB's `ValidationException`, an item over its
 * size limit): the same write can never succeed, so the sender must not be told to retry. Not a
 * `ServiceError`: no client request causes it, and the API answers it as any internal fault.
 */
export class PermanentStorageFault extends Error {
  constructor(
    readonly reason: 'storage_validation' | 'item_too_large',
    options?: { cause?: unknown },
  ) {
    super(`storage refused the write for good: ${reason}`);
    this.name = 'PermanentStorageFault';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * Why a received mail cannot be taken whole: more attachments or MIME parts than the service
 * parses (`mime_limit`), or a header block larger than the parser reads (`header_limit`).
 */
export type MailLimitReason = 'mime_limit' | 'header_limit';

/**
 * A received mail that cannot be taken whole while its sender still waits for an answer:
 * refused for good (SMTP 5xx with the reason) rather than stored in part.
 */
export class MailRefused extends Error {
  constructor(readonly reason: MailLimitReason) {
    super(`mail refused: ${reason}`);
    this.name = 'MailRefused';
  }
}

/**
 * Blobs a batch delete left in place, each with the reason storage gave (S3's per-key error code,
 * or the failure of the whole call). Every other key of the batch is gone.
 */
export class BlobsNotDeleted extends Error {
  constructor(
    readonly failures: readonly { key: string; reason: string }[],
    options: { cause?: unknown } = {},
  ) {
    const reasons = [...new Set(failures.map((failure) => failure.reason))].join(', ');
    super(`${failures.length} blob(s) not deleted: ${reasons}`);
    this.name = 'BlobsNotDeleted';
    if (options.cause !== undefined) this.cause = options.cause;
  }
}
