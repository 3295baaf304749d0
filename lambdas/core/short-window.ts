/**
 * The short-window safety limits (contract: Limits): 300 requests a minute per key and 600 per
 * account, across all operations, on both plans (DESIGN: gaps). Best effort, never billing.
 */
export const shortWindowLimits = { windowSeconds: 60, perKey: 300, perAccount: 600 } as const;

/** Requests a minute per key and per account; only the local runtime's load tests raise them. */
export interface ShortWindowLimits {
  perKey: number;
  perAccount: number;
}

/** The fixed window a moment falls in, with its limits. */
export function shortWindowAt(
  now: Date,
  limits: ShortWindowLimits = shortWindowLimits,
): { id: number; perKey: number; perAccount: number } {
  return {
    id: Math.floor(now.getTime() / (shortWindowLimits.windowSeconds * 1000)),
    perKey: limits.perKey,
    perAccount: limits.perAccount,
  };
}

/** Whole seconds until the window of a moment ends: at least 1, as `Retry-After` requires. */
export function secondsUntilNextWindow(now: Date): number {
  const windowMs = shortWindowLimits.windowSeconds * 1000;
  const next = (Math.floor(now.getTime() / windowMs) + 1) * windowMs;
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
