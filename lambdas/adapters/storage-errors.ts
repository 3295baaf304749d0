import { PermanentStorageFault, Unavailable } from '../core/errors';

/** Error names of DynamoDB and S3 that mean "try again shortly", not "your request is wrong". */
const transientNames = new Set([
  // DynamoDB
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  // S3
  'ServiceUnavailable',
  'SlowDown',
  'InternalError',
  'Throttling',
  'TooManyRequestsException',
  // The SDK's own, for a request that got no answer in time
  'TimeoutError',
  'RequestTimeout',
]);
/** Network failures of a request that never got an answer: the next attempt may well get one. */
const transientCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The name under which the mapping sits in a client's middleware stack, present once. */
const mappingName = 'tempmailStorageErrors';

/** True for an AWS error that says the request itself failed its condition. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/**
 * Maps a storage error the caller did not expect: transient ones, and any answer of the service's
 * own fault (HTTP 5xx, whatever its name), become 503 `Unavailable`; a `ValidationException` (an
 * item DynamoDB will never accept, such as one over 400 KB) becomes a `PermanentStorageFault`, so
 * that nobody is told to retry it. Anything else (a condition failure, S3's `NoSuchKey` or 304)
 * passes unchanged, for the store to judge.
 */
export function storageFailure(error: unknown): unknown {
  const { name, code, $metadata } = (error ?? {}) as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const serverFault = ($metadata?.httpStatusCode ?? 0) >= 500;
  if ((name && transientNames.has(name)) || (code && transientCodes.has(code)) || serverFault) {
    return new Unavailable(1, { cause: error });
  }
  if (name === 'ValidationException') return new PermanentStorageFault('storage_validation', { cause: error });
  return error;
}

/** What the mapping needs of an SDK client, DynamoDB's or S3's: its middleware stack. */
export interface SdkClient {
  middlewareStack: {
    identify(): string[];
    add(
      middleware: (next: (args: never) => Promise<unknown>) => (args: never) => Promise<unknown>,
      options: { step: 'initialize'; priority: 'high'; name: string },
    ): void;
  };
}

/**
 * Puts the mapping of storage errors into an SDK client's middleware stack, once: every call of the
 * client then fails with the project's errors, after the SDK's own retries (which sit further in),
 * and no store call needs a guard of its own. It sits first in the first step, so that faults
 * added to the stack later (a test's throttle) are mapped as the service's would be.
 */
export function mapStorageErrors(client: SdkClient, map: (error: unknown) => unknown = storageFailure): void {
  const stack = client.middlewareStack;
  if (stack.identify().some((entry) => entry.startsWith(`${mappingName} `))) return;
  stack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw map(error);
      }
    },
    { step: 'initialize', priority: 'high', name: mappingName },
  );
}

/** Runs one conditional write; `undefined` when its condition did not hold, its result otherwise. */
export async function conditionally<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
