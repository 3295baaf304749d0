/** Orders by code unit, as DynamoDB orders string keys. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Oldest first by creation time, ties broken by id: a listing stays in one stable order whatever
 * order the store returned (the operator CLI's `account list` and `key list`).
 */
export function oldestFirst<T extends { createdAt: string }>(idOf: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => compareText(a.createdAt, b.createdAt) || compareText(idOf(a), idOf(b));
}

/** Newest first by creation time (the console's lists), ties broken by id. */
export function newestFirst<T extends { createdAt: string }>(idOf: (item: T) => string): (a: T, b: T) => number {
  const oldest = oldestFirst(idOf);
  return (a, b) => oldest(b, a);
}
