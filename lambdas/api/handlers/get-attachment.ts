import { openAttachment } from '../../core/messages';
import type { RouteHandler } from '../api-types';
import { fileResult } from '../file-result';
import { pathId } from '../path-id';
import { noQuery, parseInput } from '../query';
import type { BlobServices } from '../../composition/services';
import { lambdaRoute } from '../../composition/lambda-route';

/** GET /v1/messages/{message_id}/attachments/{attachment_id}: the bytes, always as a download. */
export const route: RouteHandler<BlobServices> = async (request, services) => {
  parseInput(noQuery, request.query, 'query');
  const { attachment, blob } = await openAttachment(
    request.account.accountId,
    pathId(request, 'message_id', 'msg'),
    pathId(request, 'attachment_id', 'att'),
    services,
  );
  return fileResult(request, blob, { contentType: 'application/octet-stream', filename: attachment.filename });
};

export const handler = lambdaRoute('getAttachment', route);
