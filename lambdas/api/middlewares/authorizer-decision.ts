import type { MiddlewareObj } from '@middy/core';
import { Forbidden, InvalidApiKey, RateLimited, Unavailable } from '../../core/errors';
import type { ApiEvent, ApiResponse } from '../api-types';
import { decodeDecision } from '../authorizer-context';

/** Seconds a client is told to wait after its allowance ran out; an operator grant can come any time. */
export const quotaRetryAfterSeconds = 60;

/** The 429 of a used-up allowance (contract: Errors, 429; not charged). */
export function allowanceUsedUp(): RateLimited {
  return new RateLimited('The request allowance of this account is used up.', quotaRetryAfterSeconds, 'allowance_exhausted');
}

/**
 * The first middleware of every route: answers every authorizer decision but `allow` with the
 * contract's error, before the route's own code runs (DESIGN: request flow 4). A route that can
 * give an uncharged answer at a used-up allowance (`servesExhausted`: the exact replay of a
 * create) is let through on `quota_exhausted`, to its exhausted-allowance answer alone.
 */
export function authorizerDecision(options: { servesExhausted?: boolean } = {}): MiddlewareObj<ApiEvent, ApiResponse> {
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
          if (options.servesExhausted) return;
          throw allowanceUsedUp();
        case 'rate_limited':
          throw new RateLimited(
            'Too many requests in a short window; slow down.',
            decision.retryAfterSeconds,
            decision.scope === 'account' ? 'short_window_account' : 'short_window_key',
          );
      }
    },
  };
}
