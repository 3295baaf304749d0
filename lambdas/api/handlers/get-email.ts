import { getEmail, toEmailResource } from '../../core/emails';
import type { RouteHandler } from '../api-types';
import { pathId } from '../path-id';
import { noQuery, parseInput } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /v1/emails/{email_id}: the account's own, unexpired email; anything else is the same 404. */
export const route: RouteHandler = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  const email = await getEmail(request.account.accountId, pathId(request, 'email_id', 'eml'), services);
  return { status: 200, body: { data: toEmailResource(email, services.clock.now()) } };
};

export const handler = lambdaRoute('getEmail', route);
