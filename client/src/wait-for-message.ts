import { AllowanceExhaustedError, NotFoundError, RateLimitedError, TempmailError, UnexpectedMessageError, WaitTimeoutError } from './errors';
import { retryAfterMs } from './retry-policy';
import type { EmailId, Message, MessageId, MessageListItem, Page, PageQuery } from './types';

import { describeCriteria, rejectionOf, type Criterion, type Rejection, type TextMatcher } from './wait-report';

export type { TextMatcher };

/** What every call takes: a cancellation and a time-out of each HTTP request (default 30 000 ms). */
export interface CallOptions {
  signal?: AbortSignal;
  requestTimeoutMs?: number;
}

export interface MessageMatch {
  /** Tested against the whole `from` display text (name and address). */
  from?: TextMatcher;
  /** Passes when any recipient passes. */
  to?: TextMatcher;
  subject?: TextMatcher;
  /** Tested against `text` and sanitized `html`; needs the whole message (one charged read per candidate). */
  body?: TextMatcher;
  /** Any further test on the whole message. */
  where?: (message: Message) => boolean;
}

/** What an inbox held when it was marked: its message ids and the newest `received_at` as the server wrote it. */
export interface Mark {
  emailId: EmailId;
  ids: MessageId[];
  newestReceivedAt: string | null;
}

export interface WaitOptions extends CallOptions {
  /** The deadline, from the call: a finite number of milliseconds above 0. Default 30 000. */
  timeoutMs?: number;
  match?: MessageMatch;
  /** Count only messages that arrived after this mark (`client.mark(emailId)`, taken before the action). */
  after?: Mark;
  /** Ignore messages whose server `received_at` is before this instant (the server's clock against yours: prefer `after`). */
  since?: Date;
  /**
   * The most HTTP requests this wait may send. A wait whose worst case (`worstCaseRequests`: its
   * polls within the deadline, and a read per message it returns) exceeds it is refused at the
   * call with a `RangeError`, before any request, unless `stopAtBudget` is given.
   */
  maxRequests?: number;
  /** Start even when the worst case exceeds `maxRequests`: reaching it then ends the wait with `WaitTimeoutError` (`reason: 'budget'`). */
  stopAtBudget?: boolean;
  /** The wait after the first empty poll; it grows 1.5 times per poll up to `maxIntervalMs`. Default 1 000. */
  initialIntervalMs?: number;
  /** Default 5 000. */
  maxIntervalMs?: number;
  /** Told the requests the wait spent, whether it succeeded or not. */
  onSpent?: (requests: number) => void;
}

/** Options of `waitForMessages`. */
export interface WaitForMessagesOptions extends WaitOptions {
  count: number;
  /** Fail with `UnexpectedMessageError` when the poll that completes `count` holds more matching mails than that. */
  exact?: boolean;
}

/** The part of the client a wait uses. */
export interface WaitingClient {
  listMessages(emailId: EmailId, query?: PageQuery, options?: CallOptions & { once?: boolean }): Promise<Page<MessageListItem>>;
  getMessage(messageId: MessageId, options?: CallOptions & { once?: boolean }): Promise<Message>;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** The ids earlier waits returned for this email (the client's memory); a wait adds what it returns. */
  returnedIds?(emailId: string): Set<string>;
}

const PAGE = 100;

/** A time-out or deadline: a finite number above 0, else a TypeError at the call. */
export function positiveMs(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`${name} must be a finite number of milliseconds above 0, got ${String(value)}`);
  }
  return value;
}

/** Sleeps on the client's clock; an abort of `signal` ends the sleep at once with the signal's reason. */
export function sleepFor(client: Pick<WaitingClient, 'sleep'>, ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return client.sleep(ms);
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    client.sleep(ms).then(
      () => (signal.removeEventListener('abort', onAbort), resolve()),
      (error) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}

/** Lists the inbox once (the largest page) and records what is there. */
export async function takeMark(client: WaitingClient, emailId: EmailId, options: CallOptions = {}): Promise<Mark> {
  const page = await client.listMessages(emailId, { limit: PAGE }, options);
  let newest: string | null = null;
  for (const item of page.data) if (newest === null || Date.parse(item.received_at) > Date.parse(newest)) newest = item.received_at;
  return { emailId, ids: page.data.map((item) => item.id), newestReceivedAt: newest };
}

/** Whether a listed message is new for the wait: not in the mark, not older than it, not before `since`. */
function isAfter(item: MessageListItem, options: WaitOptions): boolean {
  const { after, since } = options;
  if (after && (after.ids.includes(item.id) || (after.newestReceivedAt !== null && Date.parse(item.received_at) < Date.parse(after.newestReceivedAt)))) return false;
  return !(since && Date.parse(item.received_at) < since.getTime());
}

function listMatches(match: MessageMatch, item: MessageListItem): boolean {
  return listFailure(match, item) === undefined;
}

/** The first criterion a listed mail fails among those a listing can test, in the order misses are explained. */
function listFailure(match: MessageMatch, item: MessageListItem): Criterion | undefined {
  if (!matches(match.subject, item.subject)) return 'subject';
  if (!matches(match.from, item.from)) return 'from';
  if (match.to !== undefined && !item.to.some((to) => matches(match.to, to))) return 'to';
  return undefined;
}

/** The first of `body` and `where` a whole message fails. */
function wholeFailure(match: MessageMatch, message: Message): Criterion | undefined {
  if (!matchesBody(match.body, message)) return 'body';
  return match.where && !match.where(message) ? 'where' : undefined;
}

/** Whether a whole message passes every test of a wait (used for a message already in hand). */
export function messageMatches(message: Message, match: MessageMatch = {}, options: WaitOptions = {}): boolean {
  return isAfter(message, options) && listMatches(match, message) && matchesBody(match.body, message) && (match.where?.(message) ?? true);
}

/**
 * Polls an email's messages until a new one matches, and returns that whole message. The service
 * never waits on the client's behalf (contract), so this is the client's loop: list (newest
 * first, 100 a page), test the new arrivals, sleep, list again, until the deadline.
 *
 * New means: not returned by an earlier wait of the same client, not in the `after` mark nor
 * older than its newest message, not before `since`.
 *
 * What it costs: every page is a charged request (a poll stops paging at the first message of
 * the mark, older than it or than `since`, or seen by an earlier poll), and so is each whole-message read: one
 * for the message returned, plus one per non-matching arrival when `body` or `where` is given.
 * The schedule polls at once, then after 1 s, 1.5 s, 2.25 s, 3.4 s and every 5 s: a 30-second
 * wait that finds nothing costs 9 requests. `maxRequests` bounds it.
 *
 * The deadline caps every sleep and every request; 5xx answers, network failures and the short
 * window's 429 are waited through. A used-up allowance and any other 4xx end the wait at once.
 * Throws `WaitTimeoutError` (with the last error as `cause`) at the deadline or the budget.
 */
export async function waitForMessage(client: WaitingClient, emailId: EmailId, options: WaitOptions = {}): Promise<Message> {
  return (await waitForMessages(client, emailId, { ...options, count: 1 }))[0]!;
}

/** Waits for `count` new matching messages and returns them oldest first. */
export async function waitForMessages(client: WaitingClient, emailId: EmailId, options: WaitForMessagesOptions): Promise<Message[]> {
  const timeoutMs = positiveMs(options.timeoutMs ?? 30_000, 'timeoutMs');
  const requestTimeoutMs = positiveMs(options.requestTimeoutMs ?? 30_000, 'requestTimeoutMs');
  const { count, maxRequests, signal } = options;
  if (!Number.isInteger(count) || count < 1) throw new TypeError(`count must be an integer of at least 1, got ${String(count)}`);
  if (maxRequests !== undefined && (!Number.isInteger(maxRequests) || maxRequests < 1)) throw new TypeError(`maxRequests must be an integer of at least 1, got ${String(maxRequests)}`);
  const initialIntervalMs = positiveMs(options.initialIntervalMs ?? 1_000, 'initialIntervalMs');
  const maxIntervalMs = positiveMs(options.maxIntervalMs ?? 5_000, 'maxIntervalMs');
  if (maxRequests !== undefined && !options.stopAtBudget) {
    const worst = worstCaseRequests({ timeoutMs, initialIntervalMs, maxIntervalMs, count });
    if (worst > maxRequests) {
      throw new RangeError(
        `maxRequests ${maxRequests} is below this wait's worst case of ${worst} requests (${worst - count} polls in ${timeoutMs} ms on its schedule, and ${count} read${count === 1 ? '' : 's'}): ` +
          'give a shorter timeoutMs or a longer initialIntervalMs/maxIntervalMs, or stopAtBudget: true to let the budget end the wait early',
      );
    }
  }
  if (options.after && options.after.emailId !== emailId) throw new TypeError(`The mark was taken of ${options.after.emailId}, not of ${emailId}`);
  signal?.throwIfAborted();

  const deadline = client.now() + timeoutMs;
  const match = options.match ?? {};
  const needsWhole = match.body !== undefined || match.where !== undefined;
  const returned = client.returnedIds?.(emailId) ?? new Set<string>();
  const rejected = new Map<string, Rejection>();
  /** The mails new to this wait in its window (after its mark and `since`, not returned before). */
  const arrived = new Map<string, MessageListItem>();
  const expired = new Set<string>();
  const seen = new Set<string>();
  let polls = 0;
  const found: Message[] = [];
  let requests = 0;
  let lastError: unknown;
  let interval = initialIntervalMs;

  const timeout = (reason: 'deadline' | 'budget') => {
    const now = client.now();
    for (const item of arrived.values()) if (Date.parse(item.expires_at) <= now) expired.add(item.id);
    const report = { criteria: describeCriteria({ ...options, count: count > 1 ? count : undefined }), deadline: new Date(deadline).toISOString(), polls, arrived: arrived.size, rejected: [...rejected.values()], expired: expired.size };
    return new WaitTimeoutError(emailId, timeoutMs, requests, report, reason, lastError === undefined ? undefined : { cause: lastError });
  };
  const reject = (item: MessageListItem, failed: Criterion | undefined) => {
    const rejection = rejectionOf(item, failed);
    if (rejection) rejected.set(item.id, rejection);
    return rejection !== undefined;
  };
  /** The options of the next request, counted against the budget and capped by the deadline. */
  const spend = () => {
    const left = deadline - client.now();
    if (left <= 0) throw timeout('deadline');
    if (maxRequests !== undefined && requests >= maxRequests) throw timeout('budget');
    requests++;
    return { signal, requestTimeoutMs: Math.min(requestTimeoutMs, left), once: true };
  };

  try {
    for (;;) {
      let retryAfterWait = 0;
      try {
        let cursor: string | undefined;
        const arrivals: MessageListItem[] = [];
        do {
          const spent = spend();
          if (cursor === undefined) polls++;
          const page = await client.listMessages(emailId, { limit: PAGE, cursor }, spent);
          let reachedOld = false;
          for (const item of page.data) {
            // Newest first: the first message seen before, or older than the mark or `since`, ends the new ones.
            if (seen.has(item.id) || (options.after && !isAfter(item, { after: options.after })) || (options.since && !isAfter(item, { since: options.since }))) {
              reachedOld = true;
              break;
            }
            arrivals.push(item);
          }
          cursor = page.pagination.has_more && !reachedOld ? page.pagination.next_cursor : undefined;
        } while (cursor !== undefined);
        for (const item of arrivals) seen.add(item.id);

        // Oldest first among the new ones: the first mail that matches is the one the caller waits for.
        const extra: MessageListItem[] = [];
        for (const item of arrivals.reverse()) {
          if (returned.has(item.id) || !isAfter(item, options)) continue;
          arrived.set(item.id, item);
          if (reject(item, listFailure(match, item))) continue;
          let message: Message;
          try {
            message = await client.getMessage(item.id, spend());
          } catch (error) {
            if (error instanceof NotFoundError) {
              expired.add(item.id); // expired between the listing and the read
              continue;
            }
            throw error;
          }
          if (needsWhole && reject(item, wholeFailure(match, message))) continue;
          if (found.length === count) extra.push(item);
          else found.push(message);
          if (found.length === count && !options.exact) break;
        }
        if (extra.length) {
          const named = extra.map((item) => ({ id: item.id, subject: item.subject, from: item.from, receivedAt: item.received_at }));
          throw new UnexpectedMessageError(emailId, named, `Expected exactly ${count} matching message${count === 1 ? '' : 's'} (${describeCriteria({ ...options, count: undefined })})`);
        }
        if (found.length === count) {
          for (const each of found) returned.add(each.id);
          return found;
        }
      } catch (error) {
        if (!isPassing(error) || signal?.aborted) throw error;
        lastError = error;
        if (error instanceof RateLimitedError) retryAfterWait = retryAfterMs(error.retryAfter);
      }
      const remaining = deadline - client.now();
      if (remaining <= 0) throw timeout('deadline');
      await sleepFor(client, Math.min(Math.max(interval, retryAfterWait), remaining), signal);
      interval = Math.min(maxIntervalMs, interval * 1.5);
    }
  } finally {
    options.onSpent?.(requests);
  }
}

/**
 * The most requests a wait can send, from its deadline and poll schedule: one list request per
 * poll that falls before the deadline (at once, then after `initialIntervalMs`, growing 1.5 times
 * a poll up to `maxIntervalMs`), and one read per message it returns. Beyond this only what the
 * inbox holds adds to it: a further page per 100 new mails in one poll, and with `body` or
 * `where` one read per arrival that passes the other matchers. The defaults give 9 polls in
 * 30 s (10 requests with the read of the mail found) and 15 in 60 s.
 */
export function worstCaseRequests(options: { timeoutMs?: number; initialIntervalMs?: number; maxIntervalMs?: number; count?: number } = {}): number {
  const timeoutMs = positiveMs(options.timeoutMs ?? 30_000, 'timeoutMs');
  let interval = positiveMs(options.initialIntervalMs ?? 1_000, 'initialIntervalMs');
  const maxIntervalMs = positiveMs(options.maxIntervalMs ?? 5_000, 'maxIntervalMs');
  let polls = 0;
  for (let at = 0; at < timeoutMs; at += interval, interval = Math.min(maxIntervalMs, interval * 1.5)) polls++;
  return polls + (options.count ?? 1);
}

/** A failure a wait polls through: a 5xx, a network failure or time-out, the short window's 429. */
function isPassing(error: unknown): boolean {
  if (error instanceof WaitTimeoutError || error instanceof AllowanceExhaustedError) return false;
  if (error instanceof TempmailError) return error.status === 429 || error.status >= 500;
  return error instanceof Error && error.name === 'TempmailNetworkError';
}

function matches(matcher: TextMatcher | undefined, value: string): boolean {
  if (matcher === undefined) return true;
  if (typeof matcher === 'string') return value.toLowerCase().includes(matcher.toLowerCase());
  matcher.lastIndex = 0;
  return matcher.test(value);
}

function matchesBody(matcher: TextMatcher | undefined, message: Message): boolean {
  return matcher === undefined || matches(matcher, message.text) || matches(matcher, message.html);
}
