import type { MessageListItem } from './types';

/** A text test: a substring (case-insensitive) or a regular expression. */
export type TextMatcher = string | RegExp;

/** The criteria of a wait, in the order a miss is explained: the first one a mail fails is named. */
export const criteria = ['subject', 'from', 'to', 'body', 'where'] as const;
export type Criterion = (typeof criteria)[number];

/** A mail that arrived in a wait's window and did not match: what identifies it, never its body. */
export interface Rejection {
  id: string;
  subject: string;
  from: string;
  receivedAt: string;
  /** The first criterion it failed (`subject`, `from`, `to`, `body`, `where`). */
  failed: Criterion;
}

/** What a wait did, for the error that ends it: enough to see why nothing matched. */
export interface WaitReport {
  /** The wait's criteria as text (matchers, mark, since, count); never a key. */
  criteria: string;
  /** The deadline on the client's clock, ISO 8601. */
  deadline: string;
  /** List rounds made (each one request, or more when it pages). */
  polls: number;
  /** Mails that arrived in the window (new to the wait, after its mark and `since`). */
  arrived: number;
  /** The arrivals that did not match, oldest first, each with the criterion it failed first. */
  rejected: Rejection[];
  /** Arrivals that expired (15 minutes) before the wait could read them or by its end. */
  expired: number;
}

/** The criteria of a wait in one line, e.g. `subject /verify/i, from "acme", after a mark of 2`. */
export function describeCriteria(options: {
  match?: Partial<Record<Criterion, TextMatcher | ((message: never) => boolean)>>;
  after?: { ids: readonly string[] };
  since?: Date;
  count?: number;
}): string {
  const parts: string[] = [];
  for (const name of criteria) {
    const matcher = options.match?.[name];
    if (matcher === undefined) continue;
    parts.push(name === 'where' ? 'where(message)' : `${name} ${typeof matcher === 'string' ? JSON.stringify(matcher) : String(matcher)}`);
  }
  if (options.after) parts.push(`after a mark of ${options.after.ids.length}`);
  if (options.since) parts.push(`since ${options.since.toISOString()}`);
  if (options.count !== undefined && options.count > 1) parts.push(`count ${options.count}`);
  return parts.length ? parts.join(', ') : 'any new message';
}

/** The line of one rejection in an error message. */
export function describeRejection(rejection: Rejection): string {
  return `${JSON.stringify(rejection.subject)} from ${JSON.stringify(rejection.from)} at ${rejection.receivedAt} (failed ${rejection.failed})`;
}

/** The rejection of a listed mail, or undefined when it passes every criterion a listing can test. */
export function rejectionOf(item: MessageListItem, failed: Criterion | undefined): Rejection | undefined {
  return failed === undefined ? undefined : { id: item.id, subject: item.subject, from: item.from, receivedAt: item.received_at, failed };
}
