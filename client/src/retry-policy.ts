/** How the client waits between attempts. Every number is in milliseconds. */
export interface RetryPolicy {
  /** Retries after a 500, a 503 or a network failure (the first attempt not counted). */
  maxServerRetries: number;
  /** Retries after a short-window 429. */
  maxRateLimitRetries: number;
  /** The first backoff ceiling; it doubles per retry. */
  baseDelayMs: number;
  /** The largest backoff ceiling. */
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxServerRetries: 3, maxRateLimitRetries: 4, baseDelayMs: 250, maxDelayMs: 20_000 };

/**
 * "Full jitter" exponential backoff: a uniformly random wait between 0 and
 * min(maxDelayMs, baseDelayMs · 2^retry), so that many clients refused together do not return together.
 */
export function fullJitter(retry: number, policy: RetryPolicy, random: () => number): number {
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry));
}

/**
 * The longest the client waits before one retry, whatever `Retry-After` says: the contract's short
 * window is one minute, so a longer `Retry-After` is not the short window's (a proxy's, or a
 * mistake), and a caller must not hang on it for a day.
 */
export const MAX_RETRY_WAIT_MS = 60_000;

/** `Retry-After` (seconds) as the milliseconds the client honours: at most `MAX_RETRY_WAIT_MS`. */
export function retryAfterMs(retryAfterSeconds: number | undefined): number {
  return Math.min(MAX_RETRY_WAIT_MS, (retryAfterSeconds ?? 0) * 1000);
}

/**
 * The wait before the next attempt: at least the service's `Retry-After` (seconds), plus the
 * jittered backoff on top so that clients told the same `Retry-After` spread out; never more than
 * `MAX_RETRY_WAIT_MS`.
 */
export function delayBeforeRetry(retry: number, retryAfterSeconds: number | undefined, policy: RetryPolicy, random: () => number): number {
  return Math.min(MAX_RETRY_WAIT_MS, retryAfterMs(retryAfterSeconds) + fullJitter(retry, policy, random));
}

/** `Retry-After` as integer seconds (the contract sends integers, at least 1); undefined when absent or malformed. */
export function retryAfterOf(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
