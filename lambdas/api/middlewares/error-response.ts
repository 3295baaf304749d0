import type { MiddlewareObj } from '@middy/core';
import type { Logger } from '../../core/ports/logger';
import type { ApiEvent, ApiResponse } from '../api-types';
import { errorResult } from '../error-response';
import { requestIdOf, toProxyResponse } from '../proxy-event';

/**
 * Turns any error into the contract's error response. Server-side failures are logged with the
 * request id and the error's name; never with a body, a key or mail content.
 */
export function errorResponse(logger: () => Logger): MiddlewareObj<ApiEvent, ApiResponse> {
  return {
    onError: (request) => {
      const requestId = requestIdOf(request.event);
      const result = errorResult(request.error, requestId);
      if (result.status >= 500) {
        const error = request.error as Error | undefined;
        logger().error('request failed', {
          request_id: requestId,
          route: request.event.resource,
          error: error?.name,
          detail: error?.message,
          cause: (error?.cause as Error | undefined)?.name,
        });
      }
      request.response = toProxyResponse(result);
    },
  };
}
