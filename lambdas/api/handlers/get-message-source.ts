import { openSource } from '../../core/messages';
import type { RouteHandler } from '../api-types';
import { fileResult } from '../file-result';
import { pathId } from '../path-id';
import { noQuery, parseInput } from '../query';
import type { BlobServices } from '../../composition/services';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /v1/messages/{message_id}/source: the raw message, byte for byte, as a download. */
export const route: RouteHandler<BlobServices> = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  const messageId = pathId(request, 'message_id', 'msg');
  const { blob } = await openSource(request.account.accountId, messageId, services);
  return fileResult(request, blob, { contentType: 'message/rfc822', filename: `${messageId}.eml` });
};

export const handler = lambdaRoute('getMessageSource', route);
