import type { MiddlewareObj } from '@middy/core';
import { bufferedPayloadLimitBytes } from '../../core/payload-bytes';
import type { ApiEvent, ApiResponse } from '../api-types';

/** Room left for the headers stamped after this check (`RateLimit-*`, `X-Request-Id`, `Cache-Control`). */
const laterHeaderBytes = 1024;

/** A buffered response the Lambda runtime would refuse; its figures only, never its content. */
export class ResponseTooLarge extends Error {
  constructor(bytes: number) {
    super(`buffered response of ${bytes} bytes is over the ${bufferedPayloadLimitBytes}-byte limit`);
    this.name = 'ResponseTooLarge';
  }
}

/**
 * Refuses, before the charge is settled, a buffered response that Lambda would not deliver:
 * the runtime would fail the invocation after the route answered, API Gateway would answer 502,
 * and the unit would stay charged. Thrown instead, it becomes the contract's 500, uncharged.
 * Routes bound their own bodies (a message read, `messageReadBudgetBytes`); this is the last
 * guard should one ever not. Streamed responses (file bodies) are not buffered and pass.
 */
export function bufferedPayloadLimit(): MiddlewareObj<ApiEvent, ApiResponse> {
  return {
    after: (request) => {
      const response = request.response;
      if (!response || typeof response.body !== 'string') return;
      // No character of the body costs more than 7 bytes once escaped, so most need no serializing.
      const worstCase = response.body.length * 7 + Buffer.byteLength(JSON.stringify(response.headers ?? {}), 'utf8') + 64;
      if (worstCase + laterHeaderBytes <= bufferedPayloadLimitBytes) return;
      const bytes = Buffer.byteLength(JSON.stringify(response), 'utf8') + laterHeaderBytes;
      if (bytes > bufferedPayloadLimitBytes) throw new ResponseTooLarge(bytes);
    },
  };
}
