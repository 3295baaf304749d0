import { listKeys } from '../../core/console-keys';
import type { ConsoleRouteHandler } from '../api-types';
import { noQuery, parseInput } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /console/v1/keys: the account's keys, newest first: label, prefix, created and last used. */
export const route: ConsoleRouteHandler = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  return { status: 200, body: { data: await listKeys(request.account, services) } };
};

export const handler = lambdaRoute('consoleListKeys', route);
