import { readUsage } from '../../core/usage';
import type { RouteHandler } from '../api-types';
import { noQuery, parseInput } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /v1/usage: the account's usage record, the authority on its allowance. Never charged. */
export const route: RouteHandler = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  return { status: 200, body: { data: await readUsage(request.account.accountId, services) } };
};

export const handler = lambdaRoute('getUsage', route);
