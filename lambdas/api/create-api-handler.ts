import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResponse, RouteHandler } from './api-types';
import { decodeDecision } from './authorizer-context';
import { allowanceSettlement } from './middlewares/allowance-settlement';
import { bufferedPayloadLimit } from './middlewares/buffered-payload-limit';
import { authorizerDecision } from './middlewares/authorizer-decision';
import { entityTag } from './middlewares/entity-tag';
import { errorResponse } from './middlewares/error-response';
import { responseHeaders } from './middlewares/response-headers';
import { toApiRequest, toProxyResponse } from './proxy-event';
import type { ApiServices } from '../composition/services';

/** The handler gives up this long before Lambda's own time-out, so that the refund still runs. */
export const deadlineReserveMs = 1000;

export interface ApiHandlerOptions<S extends ApiServices> {
  /** File bodies, streamed (API Gateway response streaming). */
  stream?: boolean;
  /**
   * The route's answer when the allowance is used up, for a route that has an uncharged answer
   * to give then (an exact replay of a create). It must answer 429 for anything that would be
   * charged. Without it, a used-up allowance is always 429 before the route runs.
   */
  exhaustedRoute?: RouteHandler<S>;
}

/**
 * Wraps a route in the pipeline every route shares: the authorizer's decision is enforced
 * first; 200 reads get an entity tag (or a 304); a buffered response Lambda would refuse becomes a
 * 500; errors become the contract's error shape; the reserved unit is settled; the common headers are stamped. `services` is resolved at the first request, never at import.
 */
export function createApiHandler<S extends ApiServices>(
  route: RouteHandler<S>,
  services: () => S,
  options: ApiHandlerOptions<S> = {},
) {
  const { exhaustedRoute } = options;
  // A streamed handler (file bodies) is wrapped by the Lambda runtime's awslambda.streamifyResponse.
  return middy<ApiEvent, ApiResponse, Error, Context>({
    timeoutEarlyInMillis: deadlineReserveMs,
    streamifyResponse: options.stream ?? false,
  })
    .use(responseHeaders())
    .use(allowanceSettlement(services))
    // After-steps run in reverse: the size is checked once the ETag is set, before the charge is settled.
    .use(bufferedPayloadLimit())
    .use(errorResponse(() => services().logger))
    .use(authorizerDecision({ servesExhausted: exhaustedRoute !== undefined }))
    .use(entityTag())
    .handler(async (event) => {
      const decision = decodeDecision(event.requestContext?.authorizer);
      if (decision.decision === 'quota_exhausted' && exhaustedRoute) {
        return toProxyResponse(await exhaustedRoute(toApiRequest(event, decision), services()));
      }
      if (decision.decision !== 'allow') throw new Error('route reached without an allow decision');
      return toProxyResponse(await route(toApiRequest(event, decision), services()));
    });
}
