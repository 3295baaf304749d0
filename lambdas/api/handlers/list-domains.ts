import { listDomains } from '../../core/domains';
import type { RouteHandler } from '../api-types';
import type { CursorServices } from '../../composition/services';
import { parseListQuery } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /v1/domains: the domains available to the account, paginated with signed cursors. */
export const route: RouteHandler<CursorServices> = async (request, services) => {
  const { limit, cursor } = parseListQuery(request.query);
  const page = await listDomains({ accountId: request.account.accountId, limit, cursor }, services);
  return { status: 200, body: { data: page.items, pagination: page.pagination } };
};

export const handler = lambdaRoute('listDomains', route);
