/** Longest key either store accepts: well under S3's 1024 bytes and a path's length limits. */
export const maxBlobKeyLength = 512;

const segmentPattern = /^[A-Za-z0-9_.-]+$/;

/**
 * Refuses a key that is not a generated id (`segment/segment/…`, no empty, `.` or `..` segment,
 * no leading `/`). Keys are never user input, so a bad one is a bug: a plain `Error`, not a 400.
 *
 * @example assertBlobKey('raw/em_123'); // passes; assertBlobKey('../etc/passwd') throws
 */
export function assertBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > maxBlobKeyLength) {
    throw new Error(`Invalid blob key: must be 1 to ${maxBlobKeyLength} characters.`);
  }
  for (const segment of key.split('/')) {
    if (!segmentPattern.test(segment) || segment === '.' || segment === '..') {
      throw new Error(`Invalid blob key ${JSON.stringify(key)}: bad segment ${JSON.stringify(segment)}.`);
    }
  }
}

/**
 * Refuses a listing prefix other than `''` or a valid key with an optional trailing `/` (`raw/`,
 * `att/em_1/`, or a partial segment such as `att/em`): listings match keys by string prefix, as S3 does.
 */
export function assertBlobPrefix(prefix: string): void {
  if (prefix === '') return;
  assertBlobKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
}
