import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { Logger } from '../../lambdas/core/ports/logger';
import type { FunctionHost } from './function-host';
import { checkEventPayload } from './lambda-limits';
import type { StackFunction } from './template';
import { newAwsId } from '../../lambdas/core/ids';

/** What Lambda sends to a function's dead-letter queue: the event unchanged, and why it failed. */
export interface DeadLetter {
  body: string;
  attributes: Record<string, MessageAttributeValue>;
}

export interface EventInvocations {
  /**
   * Queues an Event invocation, as Lambda answers 202 and runs it apart; an event over Lambda's
   * 1 MB for asynchronous invocations is refused here, before it is queued (`RequestEntityTooLargeException`).
   */
  invoke(logicalId: string, event: unknown): void;
  /** Resolves once every Event invocation so far has finished, its retries and dead letter included. */
  settled(): Promise<void>;
}

/** Lambda truncates the error message it attaches to a dead letter to 1 KB. */
const errorMessageBytes = 1024;

/**
 * Lambda's asynchronous invocation: the event runs, and when it fails (the handler threw, or the
 * function timed out and its environment was discarded) it runs again, as many times as the
 * function's `MaximumRetryAttempts` says, with the same request id. After the last attempt the
 * event goes to the function's dead-letter queue as Lambda sends it there (the event as the
 * body; `RequestID`, `ErrorCode` and `ErrorMessage` as attributes), or is discarded when there is
 * none. Lambda waits a minute, then two, between attempts: here they follow at once.
 */
export function eventInvocations(options: {
  host(logicalId: string): FunctionHost;
  /** Sends a dead letter as Lambda does, with the function's execution role. */
  deadLetter(fn: StackFunction, targetArn: string, letter: DeadLetter): Promise<void>;
  logger: Logger;
}): EventInvocations {
  const inFlight = new Set<Promise<void>>();
  const run = async (logicalId: string, event: unknown) => {
    const host = options.host(logicalId);
    const { maximumRetryAttempts, deadLetterTargetArn } = host.fn.asynchronous;
    const requestId = newAwsId();
    let failure: Error | undefined;
    for (let attempt = 0; attempt <= maximumRetryAttempts; attempt++) {
      try {
        await host.invoke(event, undefined, requestId, 'Event');
        return;
      } catch (error) {
        failure = error as Error;
        options.logger.error('asynchronous invocation failed', { function: host.fn.name, request_id: requestId, attempt, error: failure.message });
      }
    }
    if (!deadLetterTargetArn) {
      options.logger.error('asynchronous invocation discarded after its retries (no dead-letter queue)', { function: host.fn.name, request_id: requestId });
      return;
    }
    const letter: DeadLetter = {
      body: JSON.stringify(event),
      attributes: {
        RequestID: { DataType: 'String', StringValue: requestId },
        // A function error is answered 200 by Lambda's Invoke, with the error in the payload.
        ErrorCode: { DataType: 'Number', StringValue: '200' },
        ErrorMessage: { DataType: 'String', StringValue: Buffer.from(String(failure?.message)).subarray(0, errorMessageBytes).toString('utf8') },
      },
    };
    try {
      await options.deadLetter(host.fn, deadLetterTargetArn, letter);
      options.logger.warn('asynchronous invocation sent to its dead-letter queue', { function: host.fn.name, request_id: requestId, queue: deadLetterTargetArn });
    } catch (error) {
      // Lambda counts it in DeadLetterErrors, and the event is lost.
      options.logger.error('dead-letter queue refused the event', { function: host.fn.name, request_id: requestId, error: (error as Error).message });
    }
  };
  return {
    invoke(logicalId, event) {
      checkEventPayload(event, 'Event');
      const invocation = run(logicalId, event);
      inFlight.add(invocation);
      void invocation.finally(() => inFlight.delete(invocation));
    },
    settled: async () => {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
