/**
 * The source of "now" for every expiry and allowance decision, and of waiting: the core reads
 * time and waits only through it, so that a test's clock decides both and nothing waits for real.
 * It never throws.
 */
export interface Clock {
  now(): Date;
  /** Resolves once `ms` milliseconds have passed on this clock. */
  sleep(ms: number): Promise<void>;
}
