import type { MiddlewareObj, Request } from '@middy/core';
import type { Logger } from '../../core/ports/logger';
import type { Ledger } from '../../core/ports/ledger';
import type { ApiEvent, ApiResponse } from '../api-types';
import { decodeDecision, isAccountDecision } from '../authorizer-context';
import { requestIdOf } from '../proxy-event';

/** Outcomes that are not charged once the authorizer reserved a unit (contract: Limits, rule 3). */
export function isUnchargedOutcome(response: ApiResponse): boolean {
  const replayed = String(response.headers?.['Idempotency-Replayed'] ?? '') === 'true';
  return response.statusCode === 413 || response.statusCode === 429 || response.statusCode >= 500 || replayed;
}

/**
 * Settles the unit the authorizer reserved: kept for charged outcomes, refunded for the rest
 * (DESIGN: request flow 2), then reports the allowance in the `RateLimit-*` headers. A failed
 * refund is logged, never turned into a failed response.
 */
export function allowanceSettlement(deps: () => { ledger: Ledger; logger: Logger }): MiddlewareObj<ApiEvent, ApiResponse> {
  const settle = async (request: Request<ApiEvent, ApiResponse>) => {
    const response = request.response;
    const decision = decodeDecision(request.event.requestContext?.authorizer);
    if (!response || !isAccountDecision(decision)) return;
    const internal = request.internal as { settled?: boolean };
    if (internal.settled) return;
    internal.settled = true;

    let remaining = decision.figures.remaining;
    if (decision.charged && isUnchargedOutcome(response)) {
      try {
        await deps().ledger.refund(decision.accountId);
        remaining += 1;
      } catch (error) {
        deps().logger.error('refund failed', {
          request_id: requestIdOf(request.event),
          account_id: decision.accountId,
          error: (error as Error).name,
        });
      }
    }
    response.headers = {
      ...response.headers,
      'RateLimit-Limit': String(decision.figures.limit),
      'RateLimit-Remaining': String(Math.min(remaining, decision.figures.limit)),
      'RateLimit-Reset': String(decision.figures.reset),
    };
  };
  return { after: settle, onError: settle };
}
