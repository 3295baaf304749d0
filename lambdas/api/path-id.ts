import { InvalidRequest } from '../core/errors';
import { isIdOf, type IdPrefix } from '../core/ids';
import type { ApiRequest } from './api-types';

/** A path identifier of the expected kind, or 400 on that parameter when it has another shape. */
export function pathId(request: ApiRequest, name: string, prefix: IdPrefix): string {
  const value = request.pathParameters[name] ?? '';
  if (!isIdOf(prefix, value)) {
    throw new InvalidRequest(`The ${name} is not a valid identifier.`, [
      { field: name, reason: `must match ^${prefix}_[A-Za-z0-9_-]{10,64}$` },
    ]);
  }
  return value;
}
