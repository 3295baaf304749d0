import { getMessage, toMessageResource } from '../../core/messages';
import type { RouteHandler } from '../api-types';
import type { BlobServices } from '../../composition/services';
import { pathId } from '../path-id';
import { noQuery, parseInput } from '../query';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /v1/messages/{message_id}: the parsed message, HTML sanitized, with attachment metadata; bodies cut to fit a buffered response (core: toMessageResource). */
export const route: RouteHandler<BlobServices> = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  const message = await getMessage(request.account.accountId, pathId(request, 'message_id', 'msg'), services);
  return { status: 200, body: { data: await toMessageResource(message, services.blobs) } };
};

export const handler = lambdaRoute('getMessage', route);
