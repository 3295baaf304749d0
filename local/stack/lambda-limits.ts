import { InvocationRejected } from '../gateway/gateway-limits';

/**
 * Lambda's payload limits, as the service applies them to an invocation (docs/start-stack.md,
 * "AWS's limits", cites each figure). The messages of a refused event and of a buffered response
 * over its limit are Lambda's own, word for word, so that what a caller logs locally is what it
 * logs in AWS; Lambda publishes none for a streamed response cut at its limit.
 */
export const lambdaLimits = {
  /** A synchronous (RequestResponse) invocation's event: 6 MB (Invoke API reference). */
  requestResponseEventBytes: 6 * 1024 * 1024,
  /** An asynchronous (Event) invocation's event: 1 MB since 2025, 256 KB before (Invoke API reference). */
  eventEventBytes: 1024 * 1024,
  /**
   * A buffered response: 6 MB. Lambda lets 100 bytes more through than 6 MiB, and names that
   * figure in its error (`Response payload size exceeded maximum allowed payload size (6291556 bytes).`).
   */
  bufferedResponseBytes: 6 * 1024 * 1024 + 100,
  /** A streamed response: 200 MB (response streaming guide; 20 MB before July 2025). */
  streamedResponseBytes: 200 * 1024 * 1024,
  /** The init phase: 10 s, then Lambda retries it at the invocation, within the function's time-out (execution environment lifecycle). */
  initPhaseMs: 10_000,
} as const;

export type InvocationType = 'RequestResponse' | 'Event';

/** Lambda's Invoke answered 413 `RequestEntityTooLargeException`: the function never ran. */
export class RequestEntityTooLarge extends InvocationRejected {
  readonly statusCode = 413;

  constructor(message: string) {
    super('RequestEntityTooLargeException', message);
  }
}

/** The event's payload as Lambda measures it: the bytes of its JSON. */
export function payloadBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/** Refuses an event over the invocation type's limit, as Lambda's Invoke does before any environment runs. */
export function checkEventPayload(event: unknown, invocationType: InvocationType): void {
  const size = payloadBytes(event);
  if (invocationType === 'RequestResponse' && size > lambdaLimits.requestResponseEventBytes) {
    throw new RequestEntityTooLarge(`Request must be smaller than ${lambdaLimits.requestResponseEventBytes} bytes for the InvokeFunction operation`);
  }
  if (invocationType === 'Event' && size > lambdaLimits.eventEventBytes) {
    throw new RequestEntityTooLarge(`${size} byte payload is too large for the Event invocation type (limit ${lambdaLimits.eventEventBytes} bytes)`);
  }
}

/** The function error Lambda reports for a buffered response over its limit; undefined when it fits. */
export function responseSizeError(result: unknown): { errorType: string; errorMessage: string } | undefined {
  if (result === undefined || payloadBytes(result) <= lambdaLimits.bufferedResponseBytes) return undefined;
  return {
    errorType: 'Function.ResponseSizeTooLarge',
    errorMessage: `Response payload size exceeded maximum allowed payload size (${lambdaLimits.bufferedResponseBytes} bytes).`,
  };
}

/** The function error for a streamed response past its limit (the stream is cut there), in the buffered one's words. */
export const streamedResponseSizeError = {
  errorType: 'Function.ResponseSizeTooLarge',
  errorMessage: `Response payload size exceeded maximum allowed payload size (${lambdaLimits.streamedResponseBytes} bytes).`,
};
