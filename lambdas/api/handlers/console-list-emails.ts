import { listAccountEmails } from '../../core/account-emails';
import type { ConsoleRouteHandler } from '../api-types';
import type { ConsoleServices, CursorServices } from '../../composition/services';
import { parseListQuery } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /console/v1/emails: the account's inboxes, newest first, paged like `/v1` lists. */
export const route: ConsoleRouteHandler<CursorServices<ConsoleServices>> = async (request, services) => {
  const page = await listAccountEmails(request.account.accountId, parseListQuery(request.query), services);
  return { status: 200, body: { data: page.items, pagination: page.pagination } };
};

export const handler = lambdaRoute('consoleListEmails', route);
