/**
 * Lambda's limit on a buffered (synchronous) response: 6 MB, the whole JSON the function
 * returns (Lambda quotas, "Invocation payload (request and response)"). Read here as 6,000,000
 * bytes, below the 6 MiB the runtime itself enforces. A buffered proxy response over it never
 * reaches the client: the runtime refuses it and API Gateway answers 502.
 */
export const bufferedPayloadLimitBytes = 6_000_000;

/**
 * The bytes a string's characters cost in Lambda's buffered response, where they are escaped
 * twice: once in the route's JSON body, once more because that body is itself a string in the
 * proxy response (`{"statusCode":…,"headers":…,"body":"…"}`). A quote or backslash costs 4
 * bytes, `\n`-style controls 3, other control characters and lone surrogates 7 (`\\u0001`),
 * other characters their UTF-8 size. Counting stops once `stopAfter` is passed, so a 40 MB
 * body costs no more than the budget it is measured against.
 */
export function payloadBytes(value: string, stopAfter = Number.POSITIVE_INFINITY): number {
  let total = 0;
  for (let index = 0; index < value.length && total <= stopAfter; index += 1) {
    const width = unitWidth(value, index);
    total += width.bytes;
    index += width.units - 1;
  }
  return total;
}

/**
 * The longest prefix of `value` whose characters cost at most `budget` payload bytes, never
 * splitting a surrogate pair.
 */
export function prefixWithin(value: string, budget: number): string {
  let total = 0;
  let index = 0;
  while (index < value.length) {
    const width = unitWidth(value, index);
    if (total + width.bytes > budget) break;
    total += width.bytes;
    index += width.units;
  }
  return value.slice(0, index);
}

/** The payload bytes of the character at `index`, and how many UTF-16 units it spans. */
function unitWidth(value: string, index: number): { bytes: number; units: number } {
  const code = value.charCodeAt(index);
  if (code === 0x22 || code === 0x5c) return { bytes: 4, units: 1 };
  if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return { bytes: 3, units: 1 };
  if (code < 0x20) return { bytes: 7, units: 1 };
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = value.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return { bytes: 4, units: 2 };
    return { bytes: 7, units: 1 };
  }
  if (code >= 0xdc00 && code <= 0xdfff) return { bytes: 7, units: 1 };
  return { bytes: 3, units: 1 };
}
