import type { OpenBlob } from '../core/messages';
import type { ApiRequest, ApiResult } from './api-types';
import { matchesIfNoneMatch } from './middlewares/entity-tag';

/**
 * A file body from an open blob, or 304 when the client's `If-None-Match` names the blob's
 * entity tag (the stream is then closed unread). Files are streamed, so their tag is the blob's
 * own rather than a hash of the body.
 */
export function fileResult(request: ApiRequest, blob: OpenBlob, file: { contentType: string; filename: string }): ApiResult {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && matchesIfNoneMatch(ifNoneMatch, blob.etag)) {
    blob.stream.destroy();
    return { status: 304, headers: { ETag: blob.etag } };
  }
  return { status: 200, file: { stream: blob.stream, size: blob.size, etag: blob.etag, ...file } };
}
