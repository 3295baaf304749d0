import * as z from 'zod/mini';
import { InvalidRequest, type ErrorDetail } from '../core/errors';
import { listLimit } from '../core/pagination';

/** `limit` and `cursor` of the list endpoints (contract: Pagination; DESIGN: list limit). */
export const listQuery = z.strictObject({
  limit: z.optional(
    z.string().check(z.regex(/^(?:100|[1-9][0-9]?)$/, `must be an integer from ${listLimit.min} to ${listLimit.max}`)),
  ),
  cursor: z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(4096, 'is too long'))),
});

/** A query that takes no parameters. */
export const noQuery = z.strictObject({});

/**
 * Validates input against a schema; failures become 400 `invalid_request` with one detail per
 * offending field (contract: Errors).
 */
export function parseInput<T>(schema: z.ZodMiniType<T>, input: unknown, what: string): T {
  const result = z.safeParse(schema, input);
  if (result.success) return result.data;
  const details: ErrorDetail[] = result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), reason: 'is not a recognized parameter' }))
      : [{ field: issue.path.join('.') || what, reason: issue.message }],
  );
  throw new InvalidRequest(`The ${what} is invalid.`, details);
}

/** The list parameters with their defaults applied. */
export function parseListQuery(query: Readonly<Record<string, string>>): { limit: number; cursor: string | undefined } {
  const parsed = parseInput(listQuery, query, 'query');
  return { limit: parsed.limit === undefined ? listLimit.default : Number(parsed.limit), cursor: parsed.cursor };
}
