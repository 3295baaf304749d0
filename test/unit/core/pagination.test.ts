import { pageAfter } from '../../../lambdas/core/pagination';
import { TestClock } from '../../support/test-clock';

const request = (limit: number, cursor?: string) => ({
  context: { accountId: 'acc_1', route: 'r', pathId: '', limit },
  cursor,
  cursorSecret: 'unit-test-secret-0123456789abcdef',
  clock: new TestClock(),
});

describe('pageAfter', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];

  it('walks a list page by page until has_more is false', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = pageAfter(items, (item) => item, request(2, cursor));
      seen.push(...page.items);
      cursor = page.pagination.next_cursor;
      expect(page.pagination.has_more).toBe(cursor !== undefined);
      pages++;
    } while (cursor);
    expect(seen).toEqual(items);
    expect(pages).toBe(3);
  });

  it('says no more and gives no cursor on an exact last page', () => {
    const page = pageAfter(items, (item) => item, request(5));
    expect(page.items).toEqual(items);
    expect(page.pagination).toEqual({ has_more: false });
  });

  it('gives an empty page for an empty list', () => {
    expect(pageAfter([], (item: string) => item, request(20))).toEqual({ items: [], pagination: { has_more: false } });
  });

  it('continues after the position even when that item has since gone', () => {
    const first = pageAfter(items, (item) => item, request(2));
    const rest = pageAfter(['a', 'c', 'd', 'e'], (item) => item, request(2, first.pagination.next_cursor));
    expect(rest.items).toEqual(['c', 'd']);
  });
});
