import type { MiddlewareObj } from '@middy/core';
import { Forbidden, InvalidApiKey, RateLimited, Unavailable } from '../../core/errors';
import type { ApiEvent, ApiResponse } from '../api-types';
import { decodeDecision } from '../authorizer-context';

/** Seconds a client is told to wait after its allowance ran out; an operator grant can come any time. */
export const quotaRetryAfterSeconds = 60;

/**
 * The first middleware of every route: answers every authorizer decision but `allow` with the
 * contract's error, before the route's own code runs (DESIGN: request flow 4).
 */
export function authorizerDecision(): MiddlewareObj<ApiEvent, ApiResponse> {
  return {
    before: (request) => {
      const decision = decodeDecision(request.event.requestContext?.authorizer);
      switch (decision.decision) {
        case 'allow':
          return;
        case 'invalid_api_key':
          throw new InvalidApiKey();
        case 'forbidden':
          throw new Forbidden();
        case 'service_unavailable':
          throw new Unavailable(1);
        case 'quota_exhausted':
          throw new RateLimited('The request allowance of this account is used up.', quotaRetryAfterSeconds);
        case 'rate_limited':
          throw new RateLimited('Too many requests in a short window; slow down.', decision.retryAfterSeconds);
      }
    },
  };
}
