import { revokeKey } from '../../core/console-keys';
import { InvalidRequest } from '../../core/errors';
import { isIdOf } from '../../core/ids';
import type { ConsoleRouteHandler } from '../api-types';
import { noQuery, parseInput } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/**
 * DELETE /console/v1/keys/{key_id}: revokes one of the account's keys; it then gets 401 on
 * `/v1`. Another account's key id is the one 404. Rate-limited per account.
 */
export const route: ConsoleRouteHandler = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  const keyId = request.pathParameters.key_id ?? '';
  if (!isIdOf('key', keyId)) {
    throw new InvalidRequest('The key id is malformed.', [{ field: 'key_id', reason: 'must be a key identifier' }]);
  }
  return { status: 200, body: { data: await revokeKey(request.account, keyId, services) } };
};

export const handler = lambdaRoute('consoleRevokeKey', route);
