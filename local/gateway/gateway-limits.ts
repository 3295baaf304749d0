import type { GatewayResponseType } from '../../lib/gateway-responses';

/**
 * API Gateway REST's limits on a request and its integration, and how the gateway answers an
 * integration that failed (docs/start-stack.md, "AWS's limits", cites each figure).
 */

/** The request payload API Gateway REST accepts: 10 MB. A larger body never reaches a function (413, REQUEST_TOO_LARGE). */
export const gatewayMaxBodyBytes = 10 * 1024 * 1024;

/** The integration time-out when a method declares none: 29 s (raisable per API since June 2024, for Regional APIs). */
export const defaultIntegrationTimeoutMs = 29_000;

/**
 * An integration the Lambda service refused to run (its Invoke answered an error: a payload over
 * its limit, throttling): API Gateway answers 500 where a function that ran and failed is 502.
 */
export class InvocationRejected extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(message);
    this.name = errorType;
  }
}

/** How the gateway answers an integration's failure: the gateway response type, and API Gateway's own status and message for it. */
export interface IntegrationFailure {
  type: GatewayResponseType;
  builtIn: [status: number, message: string];
}

/**
 * What API Gateway answers when a Lambda proxy integration fails. Each is the INTEGRATION_FAILURE
 * gateway response where the API declares one (the stack does); undeclared, API Gateway's own
 * answer is `{"message": "Internal server error"}` with 500 when Lambda refused the invocation,
 * and 502 when the function ran and failed (threw, timed out, returned a response over Lambda's
 * limit or one that is not a proxy response).
 */
export function integrationFailure(error: unknown): IntegrationFailure {
  if (error instanceof InvocationRejected) return { type: 'INTEGRATION_FAILURE', builtIn: [500, 'Internal server error'] };
  return { type: 'INTEGRATION_FAILURE', builtIn: [502, 'Internal server error'] };
}

/** The gateway's answer when the integration outlives its time-out: INTEGRATION_TIMEOUT, API Gateway's own 504. */
export const integrationTimedOut: IntegrationFailure = { type: 'INTEGRATION_TIMEOUT', builtIn: [504, 'Endpoint request timed out'] };

/**
 * Settles as the integration does, or rejects with `timedOut` once `timeoutMs` has passed: the
 * gateway stops waiting (the function may go on running, as in AWS).
 */
export function withinIntegrationTimeout<T, S extends symbol>(work: Promise<T>, timeoutMs: number, timedOut: S): Promise<T | S> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<S>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), timeoutMs);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
