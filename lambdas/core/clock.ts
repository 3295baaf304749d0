/** The source of "now" for every expiry and allowance decision; tests inject their own. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
