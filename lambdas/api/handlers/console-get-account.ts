import { usageRecord } from '../../core/usage';
import type { ConsoleRouteHandler } from '../api-types';
import { noQuery, parseInput } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /console/v1/account: the signed-in customer's account and its allowance. Never charged. */
export const route: ConsoleRouteHandler = async (request) => {
  parseInput(noQuery, request.query, 'query');
  const { account, identity } = request;
  return {
    status: 200,
    body: {
      data: {
        id: account.accountId,
        email: identity.email ?? null,
        created_at: account.createdAt,
        ...usageRecord(account),
      },
    },
  };
};

export const handler = lambdaRoute('consoleGetAccount', route);
