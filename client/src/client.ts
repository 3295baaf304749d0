import { AllowanceExhaustedError, RateLimitedError, TempmailError, TempmailNetworkError, type ErrorDetail } from './errors';
import { defaultRetryPolicy, delayBeforeRetry, retryAfterOf, type RetryPolicy } from './retry-policy';
import type { CreateEmailRequest, Domain, Email, FileBody, Message, MessageListItem, Page, PageQuery, Usage } from './types';
import { waitForMessage, type WaitOptions } from './wait-for-message';

/** What the client needs from its surroundings; tests give a fake clock. */
export interface ClientOptions {
  /** The account's API key (`tm_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The service's address without `/v1`, for example `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The fetch to use; the platform's by default. */
  fetch?: typeof fetch;
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

interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  idempotencyKey?: string;
}

/**
 * A typed client of the tempmail API: one method per operation, with the client's duties of the
 * contract built in. A create carries an Idempotency-Key made for it and reused across its own
 * retries; a short-window 429 waits `Retry-After` plus full-jitter backoff; a used-up allowance
 * throws `AllowanceExhaustedError` at once; 500, 503 and network failures are retried a few
 * times; any other 4xx throws `TempmailError` at once.
 *
 * @example
 * const tempmail = new TempmailClient({ apiKey: process.env.TEMPMAIL_API_KEY!, baseUrl: 'http://127.0.0.1:3000' });
 * const inbox = await tempmail.createEmail();
 * const message = await tempmail.waitForMessage(inbox.id, { timeoutMs: 30_000, match: { subject: /verify/i } });
 */
export class TempmailClient {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  private readonly newKey: () => string;
  private readonly policy: RetryPolicy;

  constructor(private readonly options: ClientOptions) {
    if (!options.apiKey) throw new TypeError('TempmailClient: apiKey is required');
    if (!options.baseUrl) throw new TypeError('TempmailClient: baseUrl is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
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
  async createEmail(body: CreateEmailRequest = {}, options: { idempotencyKey?: string } = {}): Promise<Email> {
    const idempotencyKey = options.idempotencyKey ?? this.newKey();
    return (await this.json<{ data: Email }>('POST', '/v1/emails', { body, idempotencyKey })).data;
  }

  /** `GET /v1/emails/{email_id}`. */
  async getEmail(emailId: string): Promise<Email> {
    return (await this.json<{ data: Email }>('GET', `/v1/emails/${segment(emailId)}`)).data;
  }

  /** `GET /v1/emails/{email_id}/messages`: one page, newest first. */
  listMessages(emailId: string, query: PageQuery = {}): Promise<Page<MessageListItem>> {
    return this.json('GET', `/v1/emails/${segment(emailId)}/messages`, { query: { ...query } });
  }

  /** Every message of an email, page after page (each page is a charged request). */
  messages(emailId: string, query: Omit<PageQuery, 'cursor'> = {}): AsyncGenerator<MessageListItem> {
    return this.items((cursor) => this.listMessages(emailId, { ...query, cursor }));
  }

  /** `GET /v1/messages/{message_id}`. */
  async getMessage(messageId: string): Promise<Message> {
    return (await this.json<{ data: Message }>('GET', `/v1/messages/${segment(messageId)}`)).data;
  }

  /** `GET /v1/messages/{message_id}/source`: the raw RFC 822 bytes as received. */
  getMessageSource(messageId: string): Promise<FileBody> {
    return this.file(`/v1/messages/${segment(messageId)}/source`);
  }

  /** `GET /v1/messages/{message_id}/attachments/{attachment_id}`: the attachment's bytes. */
  getAttachment(messageId: string, attachmentId: string): Promise<FileBody> {
    return this.file(`/v1/messages/${segment(messageId)}/attachments/${segment(attachmentId)}`);
  }

  /** `GET /v1/domains`: one page. */
  listDomains(query: PageQuery = {}): Promise<Page<Domain>> {
    return this.json('GET', '/v1/domains', { query: { ...query } });
  }

  /** Every domain, page after page. */
  domains(query: Omit<PageQuery, 'cursor'> = {}): AsyncGenerator<Domain> {
    return this.items((cursor) => this.listDomains({ ...query, cursor }));
  }

  /** `GET /v1/usage` (never charged). */
  async getUsage(): Promise<Usage> {
    return (await this.json<{ data: Usage }>('GET', '/v1/usage')).data;
  }

  /** Polls an email until a matching message arrives; see `waitForMessage` for what it costs. */
  waitForMessage(emailId: string, options: WaitOptions = {}): Promise<Message> {
    return waitForMessage(this, emailId, options);
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

  private async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    return (await response.json()) as T;
  }

  private async file(path: string): Promise<FileBody> {
    const response = await this.send('GET', path);
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
    const headers: Record<string, string> = { Authorization: `Bearer ${this.options.apiKey}`, Accept: 'application/json' };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);

    let serverRetries = 0;
    let rateLimitRetries = 0;
    for (;;) {
      let response: Response;
      try {
        response = await this.fetchImpl(url, { method, headers, body });
      } catch (cause) {
        if (serverRetries >= this.policy.maxServerRetries) {
          throw new TempmailNetworkError(`${method} ${path} failed: ${(cause as Error)?.message ?? cause}`, { cause });
        }
        await this.sleep(delayBeforeRetry(serverRetries++, undefined, this.policy, this.random));
        continue;
      }
      if (response.ok) return response;

      const error = await errorOf(response);
      const retryAfter = retryAfterOf(response.headers);
      if (error instanceof AllowanceExhaustedError) throw error;
      if (response.status === 429) {
        if (rateLimitRetries >= this.policy.maxRateLimitRetries) {
          throw new RateLimitedError(error.status, error.code, error.message, error.requestId, error.details, retryAfter);
        }
        await this.sleep(delayBeforeRetry(rateLimitRetries++, retryAfter, this.policy, this.random));
        continue;
      }
      if ((response.status === 500 || response.status === 503) && serverRetries < this.policy.maxServerRetries) {
        await this.sleep(delayBeforeRetry(serverRetries++, retryAfter, this.policy, this.random));
        continue;
      }
      throw error;
    }
  }
}

/**
 * The typed error of a non-2xx answer. A 429 whose `RateLimit-Remaining` is 0 is the used-up
 * allowance (the short window's 429 reports the allowance still left); every other 429 is the
 * short window.
 */
async function errorOf(response: Response): Promise<TempmailError> {
  const text = await response.text();
  let parsed: { error?: { code?: string; message?: string; request_id?: string; details?: ErrorDetail[] } } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not the contract's shape (a proxy in between): keep the status and the text.
  }
  const error = parsed.error ?? {};
  const requestId = error.request_id ?? response.headers.get('x-request-id') ?? undefined;
  const code = error.code ?? `http_${response.status}`;
  const message = error.message ?? (text.slice(0, 200) || `HTTP ${response.status}`);
  const Type = response.status === 429 && response.headers.get('ratelimit-remaining')?.trim() === '0' ? AllowanceExhaustedError : TempmailError;
  return new Type(response.status, code, message, requestId, error.details ?? []);
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
