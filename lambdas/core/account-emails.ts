import type { Clock } from './ports/clock';
import { toEmailResource, type EmailResource } from './emails';
import type { EmailStore } from './ports/email-store';
import { pageAfterPosition, type Page } from './pagination';

/**
 * The account's inboxes for the console, newest first, paged with the same signed cursors as
 * `/v1` lists (contract: Pagination). Expired reservations are listed too, with their status.
 */
export async function listAccountEmails(
  accountId: string,
  query: { limit: number; cursor: string | undefined },
  deps: { emails: EmailStore; clock: Clock; cursorSecret: string },
): Promise<Page<EmailResource>> {
  const context = { accountId, route: 'consoleListEmails', pathId: '', limit: query.limit };
  const now = deps.clock.now();
  return pageAfterPosition(context, query.cursor, deps, async (after) => {
    const page = await deps.emails.listByAccount(accountId, { limit: query.limit, ...(after !== undefined ? { after } : {}) });
    return { items: page.items.map((email) => toEmailResource(email, now)), ...(page.next !== undefined ? { next: page.next } : {}) };
  });
}
