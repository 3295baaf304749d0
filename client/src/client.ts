import { AllowanceExhaustedError, RedirectError, TempmailError, TempmailNetworkError, errorFor, type ErrorCode, type ErrorDetail, type ForeignErrorCode } from './errors';
import { Inbox } from './inbox';
import { readBounded, readJsonAnswer, shapes, type AnswerShape } from './read-json-answer';
import { defaultRetryPolicy, delayBeforeRetry, retryAfterOf, type RetryPolicy } from './retry-policy';
import type { AttachmentId, CreateEmailRequest, Domain, Email, EmailId, FileBody, Message, MessageId, MessageListItem, Page, PageQuery, Usage } from './types';
import { positiveMs, sleepFor, takeMark, waitForMessage, waitForMessages, type CallOptions, type Mark, type WaitForMessagesOptions, type WaitOptions } from './wait-for-message';

/** The default address of the service: the local one that `npm start` runs. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

/** The client method of each `operationId` of the OpenAPI document. */
export const operationMethods = {
  createEmail: 'createEmail',
  getEmail: 'getEmail',
  listMessages: 'listMessages',
  getMessage: 'getMessage',
  getMessageSource: 'getMessageSource',
  getAttachment: 'getAttachment',
  listDomains: 'listDomains',
  getUsage: 'getUsage',
} as const satisfies Record<string, keyof TempmailClient>;

/** What the client needs from its surroundings; tests give a fake clock. */
export interface ClientOptions {
  /** The account's API key (`tm_…`), sent as `Authorization: Bearer`; `TEMPMAIL_API_KEY` by default. */
  apiKey?: string;
  /** The service's address without `/v1`; `TEMPMAIL_BASE_URL`, else `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** Each request's time-out in milliseconds; default 30 000. */
  requestTimeoutMs?: number;
  /** The fetch to use; the platform's by default. */
  fetch?: typeof fetch;
  /**
   * An undici dispatcher for every request, passed to `fetch` as its `dispatcher`: how to go
   * through a proxy, since Node's `fetch` does not read `HTTPS_PROXY` itself.
   *
   * @example
   * import { EnvHttpProxyAgent } from 'undici';
   * const tempmail = new TempmailClient({ dispatcher: new EnvHttpProxyAgent() }); // HTTPS_PROXY, NO_PROXY
   */
  dispatcher?: RequestInit['dispatcher'];
  /** Milliseconds since the epoch; `Date.now` by default. */
  now?: () => number;
  /** Waits; `setTimeout` by default. */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for jitter; `Math.random` by default. */
  random?: () => number;
  /** A fresh Idempotency-Key (16 to 255 printable characters); a random UUID-based key by default. */
  idempotencyKey?: () => string;
  retry?: Partial<RetryPolicy>;
}

interface RequestOptions extends CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  /** Inside a wait: one attempt, no retries (the wait is the retry loop). */
  once?: boolean;
}

/**
 * A typed client of the tempmail API: one method per operation, with the client's duties of the
 * contract built in. A create carries an Idempotency-Key made for it and reused across its own
 * retries; a short-window 429 waits `Retry-After` plus full-jitter backoff; a used-up allowance
 * throws `AllowanceExhaustedError` at once; 500, 503 and network failures are retried a few
 * times; any other 4xx throws `TempmailError` at once.
 *
 * @example
 * const tempmail = new TempmailClient(); // TEMPMAIL_API_KEY, TEMPMAIL_BASE_URL or http://127.0.0.1:3000
 * const inbox = await tempmail.createEmail();
 * const message = await tempmail.waitForMessage(inbox.id, { timeoutMs: 30_000, match: { subject: /verify/i } });
 */
export class TempmailClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  private readonly requestTimeoutMs: number;
  /** Per email id, the message ids this client's waits returned. */
  readonly returned = new Map<string, Set<string>>();
  private readonly fetchImpl: typeof fetch;
  private readonly dispatcher: RequestInit['dispatcher'];
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  private readonly newKey: () => string;
  private readonly policy: RetryPolicy;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? process.env.TEMPMAIL_API_KEY;
    if (!apiKey) throw new TypeError('TempmailClient: no API key: pass apiKey or set TEMPMAIL_API_KEY');
    if (!/^[\x21-\x7e]+$/.test(apiKey)) throw new TypeError('TempmailClient: the API key holds a space, a control character or a non-ASCII character; check how it was copied');
    this.#apiKey = apiKey;
    this.baseUrl = baseUrlOf(options.baseUrl ?? (process.env.TEMPMAIL_BASE_URL || DEFAULT_BASE_URL));
    this.requestTimeoutMs = positiveMs(options.requestTimeoutMs ?? 30_000, 'requestTimeoutMs');
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.dispatcher = options.dispatcher;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.newKey = options.idempotencyKey ?? (() => `tmc-${globalThis.crypto.randomUUID()}`);
    this.policy = { ...defaultRetryPolicy, ...options.retry };
  }

  /**
   * `POST /v1/emails`: reserves an address (both parts chosen by the service when omitted).
   * Pass `idempotencyKey` to retry a create of your own after an uncertain outcome.
   */
  async createEmail(body: CreateEmailRequest = {}, options: CallOptions & { idempotencyKey?: string } = {}): Promise<Email> {
    const idempotencyKey = options.idempotencyKey ?? this.newKey();
    return (await this.json<{ data: Email }>('POST', '/v1/emails', shapes.email, { ...options, body, idempotencyKey })).data;
  }

  /** `GET /v1/emails/{email_id}`. */
  async getEmail(emailId: EmailId, options: CallOptions = {}): Promise<Email> {
    return (await this.json<{ data: Email }>('GET', `/v1/emails/${segment(emailId)}`, shapes.email, options)).data;
  }

  /** `GET /v1/emails/{email_id}/messages`: one page, newest first. */
  listMessages(emailId: EmailId, query: PageQuery = {}, options: RequestOptions = {}): Promise<Page<MessageListItem>> {
    return this.json('GET', `/v1/emails/${segment(emailId)}/messages`, shapes.messages, { ...options, query: { ...query } });
  }

  /** Every message of an email, page after page (each page is a charged request). */
  messages(emailId: EmailId, query: Omit<PageQuery, 'cursor'> = {}): AsyncGenerator<MessageListItem> {
    return this.items((cursor) => this.listMessages(emailId, { ...query, cursor }));
  }

  /** `GET /v1/messages/{message_id}`. */
  async getMessage(messageId: MessageId, options: RequestOptions = {}): Promise<Message> {
    return (await this.json<{ data: Message }>('GET', `/v1/messages/${segment(messageId)}`, shapes.message, options)).data;
  }

  /** `GET /v1/messages/{message_id}/source`: the raw RFC 822 bytes as received. */
  getMessageSource(messageId: MessageId, options: CallOptions = {}): Promise<FileBody> {
    return this.file(`/v1/messages/${segment(messageId)}/source`, options);
  }

  /** `GET /v1/messages/{message_id}/attachments/{attachment_id}`: the attachment's bytes. */
  getAttachment(messageId: MessageId, attachmentId: AttachmentId, options: CallOptions = {}): Promise<FileBody> {
    return this.file(`/v1/messages/${segment(messageId)}/attachments/${segment(attachmentId)}`, options);
  }

  /** `GET /v1/domains`: one page. */
  listDomains(query: PageQuery = {}, options: CallOptions = {}): Promise<Page<Domain>> {
    return this.json('GET', '/v1/domains', shapes.domains, { ...options, query: { ...query } });
  }

  /** Every domain, page after page. */
  domains(query: Omit<PageQuery, 'cursor'> = {}): AsyncGenerator<Domain> {
    return this.items((cursor) => this.listDomains({ ...query, cursor }));
  }

  /** `GET /v1/usage` (never charged). */
  async getUsage(options: CallOptions = {}): Promise<Usage> {
    return (await this.json<{ data: Usage }>('GET', '/v1/usage', shapes.usage, options)).data;
  }

  /**
   * Polls an email until a new matching message arrives; see `waitForMessage` for what it costs.
   * Never returns a message an earlier wait of this client returned.
   */
  waitForMessage(emailId: EmailId, options: WaitOptions = {}): Promise<Message> {
    return waitForMessage(this, emailId, options);
  }

  /** Waits for `count` new matching messages and returns them oldest first; `exact` fails on more. */
  waitForMessages(emailId: EmailId, options: WaitForMessagesOptions): Promise<Message[]> {
    return waitForMessages(this, emailId, options);
  }

  /** What the inbox holds now (one charged request): take it before the action, pass it as `after` to the wait. */
  mark(emailId: EmailId, options: CallOptions = {}): Promise<Mark> {
    return takeMark(this, emailId, options);
  }

  /** An email with the waits a test needs, sharing this client's memory of returned messages. */
  inbox(email: Email): Inbox<TempmailClient> {
    return new Inbox(this, email);
  }

  /** Message ids this client's waits returned for an email. */
  returnedIds(emailId: string): Set<string> {
    let ids = this.returned.get(emailId);
    if (!ids) this.returned.set(emailId, (ids = new Set()));
    return ids;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `TempmailClient { baseUrl: '${this.baseUrl}', apiKey: '[redacted]' }`;
  }

  toJSON(): object {
    return { baseUrl: this.baseUrl, apiKey: '[redacted]' };
  }

  /** The pages of a listing as one stream: each `next_cursor` is sent back unchanged. */
  async *pages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<Page<T>> {
    let cursor: string | undefined;
    do {
      const page = await fetchPage(cursor);
      yield page;
      cursor = page.pagination.has_more ? page.pagination.next_cursor : undefined;
    } while (cursor !== undefined);
  }

  private async *items<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
    for await (const page of this.pages(fetchPage)) yield* page.data;
  }

  /** One JSON operation: its answer read within a bound and checked against the document's shape. */
  private async json<T>(method: string, path: string, shape: AnswerShape, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    return readJsonAnswer<T>(response, shape, `${method} ${path} at ${new URL(this.baseUrl).origin}`);
  }

  private async file(path: string, options: CallOptions): Promise<FileBody> {
    const response = await this.send('GET', path, options);
    const disposition = response.headers.get('content-disposition') ?? '';
    return {
      bytes: new Uint8Array(await response.arrayBuffer()),
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      filename: filenameOf(disposition),
    };
  }

  /** One operation, with its retries. The same request (and Idempotency-Key) is sent each time. */
  private async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#apiKey}`, Accept: 'application/json' };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const timeoutMs = positiveMs(options.requestTimeoutMs ?? this.requestTimeoutMs, 'requestTimeoutMs');
    const { signal } = options;

    let serverRetries = 0;
    let rateLimitRetries = 0;
    for (;;) {
      signal?.throwIfAborted();
      let response: Response;
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        // The contract never redirects: a redirect is reported, never followed (see RedirectError).
        const init: RequestInit = { method, headers, body, redirect: 'manual', signal: signal ? AbortSignal.any([signal, timeout]) : timeout };
        if (this.dispatcher) init.dispatcher = this.dispatcher;
        response = await this.fetchImpl(url, init);
      } catch (cause) {
        signal?.throwIfAborted();
        const why = timeout.aborted ? `timed out after ${timeoutMs} ms` : ((cause as Error)?.message ?? String(cause));
        const error = new TempmailNetworkError(`${method} ${path} at ${url.origin} failed: ${why}; is the service running? (npm start runs it locally)`, { cause });
        if (options.once || serverRetries >= this.policy.maxServerRetries) throw error;
        await sleepFor(this, delayBeforeRetry(serverRetries++, undefined, this.policy, this.random), signal);
        continue;
      }
      if (response.ok) return response;
      if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) throw await redirectOf(response, method, path, url);

      const error = await errorOf(response);
      const retryAfter = retryAfterOf(response.headers);
      if (error instanceof AllowanceExhaustedError || options.once) throw error;
      if (response.status === 429) {
        if (rateLimitRetries >= this.policy.maxRateLimitRetries) throw error;
        await sleepFor(this, delayBeforeRetry(rateLimitRetries++, retryAfter, this.policy, this.random), signal);
        continue;
      }
      if ((response.status === 500 || response.status === 503) && serverRetries < this.policy.maxServerRetries) {
        await sleepFor(this, delayBeforeRetry(serverRetries++, retryAfter, this.policy, this.random), signal);
        continue;
      }
      throw error;
    }
  }
}

/** The most bytes of an error answer read (the contract's are well under 4 KiB). */
const ERROR_ANSWER_BYTES = 64 * 1024;

/**
 * The typed error of a non-2xx answer. A 429 whose `RateLimit-Remaining` is 0 is the used-up
 * allowance (the short window's 429 reports the allowance still left); every other 429 is the
 * short window.
 */
async function errorOf(response: Response): Promise<TempmailError> {
  // An error answer of the contract is small; a larger one is someone else's, kept to its status.
  const text = (await readBounded(response, ERROR_ANSWER_BYTES)) ?? '';
  let parsed: { error?: { code?: string; message?: string; request_id?: string; details?: ErrorDetail[] } } = {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null) parsed = value;
  } catch {
    // Not the contract's shape (a proxy in between): keep the status and the text.
  }
  const error = parsed.error ?? {};
  const requestId = error.request_id ?? response.headers.get('x-request-id') ?? undefined;
  const code: ErrorCode | ForeignErrorCode = (error.code as ErrorCode | undefined) ?? `http_${response.status}`;
  const message = error.message ?? (text.slice(0, 200) || `HTTP ${response.status}`);
  return errorFor(response.status, code, message, requestId, error.details ?? [], retryAfterOf(response.headers), response.headers.get('ratelimit-remaining'));
}

/** The error of a 3xx answer, naming where it pointed; its body is discarded unread. */
async function redirectOf(response: Response, method: string, path: string, url: URL): Promise<RedirectError> {
  await response.body?.cancel().catch(() => undefined);
  const status = response.type === 'opaqueredirect' ? 0 : response.status;
  const raw = response.headers.get('location');
  let location: string | undefined;
  if (raw !== null) {
    try {
      location = new URL(raw, url).href.slice(0, 2048);
    } catch {
      location = raw.slice(0, 2048);
    }
  }
  const where = location === undefined ? 'somewhere it did not name' : location;
  return new RedirectError(
    status,
    `${method} ${path} at ${url.origin} answered ${status || 'a redirect'}, redirected to ${where}; the API never redirects, so the client did not follow it (the key and the request stay with ${url.origin}). Check the base URL (TEMPMAIL_BASE_URL): is it the service's, with the scheme it serves?`,
    response.headers.get('x-request-id') ?? undefined,
    location,
  );
}

/** The service's origin (and any path prefix); a path ending in `/v1` is a mistake the client explains. */
function baseUrlOf(value: string): string {
  const trimmed = value.replace(/\/+$/, '');
  if (/\/v1$/i.test(trimmed)) {
    throw new TypeError(`TempmailClient: baseUrl must not end in /v1 (${trimmed}): the client's paths already begin with /v1; give the service's origin, such as ${DEFAULT_BASE_URL}`);
  }
  return trimmed;
}

function segment(id: string): string {
  return encodeURIComponent(id);
}

function filenameOf(disposition: string): string | undefined {
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      // fall through to the plain parameter
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(disposition)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(disposition)?.[1];
}
