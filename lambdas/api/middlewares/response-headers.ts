import type { MiddlewareObj, Request } from '@middy/core';
import type { ApiEvent, ApiResponse } from '../api-types';
import { requestIdOf } from '../proxy-event';

/**
 * The headers every response carries (contract: Endpoints): `X-Request-Id`, and
 * `Cache-Control: private, no-store` (on every body: JSON, raw sources and attachments alike).
 */
export function responseHeaders(): MiddlewareObj<ApiEvent, ApiResponse> {
  const stamp = (request: Request<ApiEvent, ApiResponse>) => {
    if (!request.response) return;
    request.response.headers = {
      ...request.response.headers,
      'X-Request-Id': requestIdOf(request.event),
      'Cache-Control': 'private, no-store',
    };
  };
  return { after: stamp, onError: stamp };
}
