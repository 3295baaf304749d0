import { WaitTimeoutError } from './errors';
import type { Message, MessageListItem, Page, PageQuery } from './types';

/** A text test: a substring (case-insensitive) or a regular expression. */
export type TextMatcher = string | RegExp;

export interface MessageMatch {
  /** Tested against the whole `from` display text (name and address). */
  from?: TextMatcher;
  subject?: TextMatcher;
  /** Tested against `text` and sanitized `html`; needs the whole message (one charged read per candidate). */
  body?: TextMatcher;
  /** Any further test on the whole message. */
  where?: (message: Message) => boolean;
}

export interface WaitOptions {
  /** The deadline, from the call. Default 30 000. */
  timeoutMs?: number;
  match?: MessageMatch;
  /** Ignore messages received before this instant (a second mail to the same inbox). */
  since?: Date;
  /** The wait after the first empty poll; it grows 1.5 times per poll up to `maxIntervalMs`. Default 1 000. */
  initialIntervalMs?: number;
  /** Default 5 000. */
  maxIntervalMs?: number;
}

/** The part of the client a wait uses. */
export interface WaitingClient {
  listMessages(emailId: string, query?: PageQuery): Promise<Page<MessageListItem>>;
  getMessage(messageId: string): Promise<Message>;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/**
 * Polls an email's messages until one matches, and returns that whole message. The service never
 * waits on the client's behalf (contract), so this is the client's loop: list (newest first,
 * following every `next_cursor`), test the new arrivals, sleep, list again, until the deadline.
 *
 * What it costs: every poll is a charged request (one per page; a poll stops paging at the first
 * page that holds a message an earlier poll saw), and so is each whole-message
 * read: one for the message returned, plus one per non-matching arrival when `body` or `where`
 * is given. The schedule polls at once, then after 1 s, 1.5 s, 2.25 s, 3.4 s and every 5 s:
 * a mail that takes 2 s to arrive costs 3 polls and one read; a 30-second wait that finds
 * nothing costs 10 requests; a 60-second one, 16.
 *
 * Throws `WaitTimeoutError` at the deadline.
 */
export async function waitForMessage(client: WaitingClient, emailId: string, options: WaitOptions = {}): Promise<Message> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxIntervalMs = options.maxIntervalMs ?? 5_000;
  const deadline = client.now() + timeoutMs;
  const match = options.match ?? {};
  const needsWhole = match.body !== undefined || match.where !== undefined;
  const rejected = new Map<string, string>();
  const seen = new Set<string>();
  let requests = 0;
  let interval = options.initialIntervalMs ?? 1_000;

  for (;;) {
    let cursor: string | undefined;
    const arrivals: MessageListItem[] = [];
    do {
      const page = await client.listMessages(emailId, { cursor });
      requests++;
      arrivals.push(...page.data);
      // Newest first: once a page reaches a message an earlier poll saw, every later page is old.
      const reachedSeen = page.data.some((item) => seen.has(item.id));
      cursor = page.pagination.has_more && !reachedSeen ? page.pagination.next_cursor : undefined;
    } while (cursor !== undefined);
    for (const item of arrivals) seen.add(item.id);

    // Oldest first among the new ones: the first mail that matches is the one the caller waits for.
    for (const item of arrivals.reverse()) {
      if (rejected.has(item.id)) continue;
      if (options.since && Date.parse(item.received_at) < options.since.getTime()) continue;
      if (!matches(match.from, item.from) || !matches(match.subject, item.subject)) {
        rejected.set(item.id, item.subject);
        continue;
      }
      const message = await client.getMessage(item.id);
      requests++;
      if (!needsWhole || (matchesBody(match.body, message) && (match.where?.(message) ?? true))) return message;
      rejected.set(item.id, item.subject);
    }

    const remaining = deadline - client.now();
    if (remaining <= 0) throw new WaitTimeoutError(emailId, timeoutMs, requests, [...rejected.values()].reverse());
    await client.sleep(Math.min(interval, remaining));
    interval = Math.min(maxIntervalMs, interval * 1.5);
  }
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
