import { listMessages } from '../../core/messages';
import type { RouteHandler } from '../api-types';
import type { CursorServices } from '../../composition/services';
import { pathId } from '../path-id';
import { parseListQuery } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /v1/emails/{email_id}/messages: what arrived and has not expired, newest first. */
export const route: RouteHandler<CursorServices> = async (request, services) => {
  const { limit, cursor } = parseListQuery(request.query);
  const emailId = pathId(request, 'email_id', 'eml');
  const page = await listMessages({ accountId: request.account.accountId, emailId, limit, cursor }, services);
  return { status: 200, body: { data: page.items, pagination: page.pagination } };
};

export const handler = lambdaRoute('listMessages', route);
