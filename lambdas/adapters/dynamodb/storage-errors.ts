import { PermanentStorageFault, Unavailable } from '../../core/errors';

/** Error names of DynamoDB and S3 that mean "try again shortly", not "your request is wrong". */
const transientNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'SlowDown',
  'TimeoutError',
  'RequestTimeout',
]);
const transientCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN']);

/** True for an AWS error that says the request itself failed its condition. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/**
 * Maps a storage error the caller did not expect: transient ones become 503 `Unavailable`; a
 * `ValidationException` (an item DynamoDB will never accept, such as one over 400 KB) becomes a
 * `PermanentStorageFault`, so that nobody is told to retry it.
 */
export function storageFailure(error: unknown): unknown {
  const { name, code } = (error ?? {}) as { name?: string; code?: string };
  if ((name && transientNames.has(name)) || (code && transientCodes.has(code))) {
    return new Unavailable(1, { cause: error });
  }
  if (name === 'ValidationException') return new PermanentStorageFault('storage_validation', { cause: error });
  return error;
}

/** Runs one storage call, turning transient failures into 503 `Unavailable` and permanent ones into `PermanentStorageFault`. */
export async function guardStorage<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storageFailure(error);
  }
}

/** Runs one conditional write; `undefined` when its condition did not hold, its result otherwise. */
export async function conditionally<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await guardStorage(call);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
