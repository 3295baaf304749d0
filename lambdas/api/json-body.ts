import type * as z from 'zod/mini';
import { InvalidRequest, PayloadTooLarge } from '../core/errors';
import type { ApiRequest } from './api-types';
import { parseInput } from './query';

/**
 * Reads a JSON object body (contract: POST /v1/emails): over the size limit is 413; another
 * Content-Type, no body or malformed JSON is 400; then the schema decides, field by field.
 */
export function parseJsonBody<T>(request: Pick<ApiRequest, 'body' | 'headers'>, schema: z.ZodMiniType<T>, maxBytes: number): T {
  const body = request.body ?? '';
  if (Buffer.byteLength(body, 'utf8') > maxBytes) throw new PayloadTooLarge(maxBytes);
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new InvalidRequest('The body must be JSON, sent with Content-Type: application/json.', [
      { field: 'Content-Type', reason: 'must be application/json' },
    ]);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new InvalidRequest('The body is not valid JSON.', [{ field: 'body', reason: 'must be a JSON object' }]);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidRequest('The body must be a JSON object.', [{ field: 'body', reason: 'must be a JSON object' }]);
  }
  return parseInput(schema, value, 'body');
}
