import type { Clock } from '../../lambdas/core/ports/clock';
import type { GatewayMethod } from './gateway-api';

/** What the gateway keeps between requests: each method's throttle bucket, each authorizer's cached results. */
export class GatewayState {
  private readonly buckets = new Map<GatewayMethod, { tokens: number; at: number }>();
  private readonly caches = new Map<object, Map<string, { value: unknown; expiresAt: number }>>();

  /** The gateway's time: what its events, its functions' remaining time, its buckets and caches read. */
  constructor(readonly clock: Clock) {}

  /** Takes a request from the method's bucket (a token bucket, as API Gateway throttles); false when it is empty. */
  admit(method: GatewayMethod): boolean {
    if (!method.throttle) return true;
    const now = this.clock.now().getTime();
    const { rate, burst } = method.throttle;
    const bucket = this.buckets.get(method) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate);
    bucket.at = now;
    this.buckets.set(method, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** An authorizer's result for these identity-source values: reused within its TTL, else produced (and kept when defined). */
  async cached<T>(authorizer: { resultTtlSeconds: number }, identity: string[], produce: () => Promise<T>): Promise<T> {
    if (authorizer.resultTtlSeconds <= 0) return produce();
    const cache = this.caches.get(authorizer) ?? new Map<string, { value: unknown; expiresAt: number }>();
    this.caches.set(authorizer, cache);
    const key = JSON.stringify(identity);
    const hit = cache.get(key);
    if (hit && hit.expiresAt > this.clock.now().getTime()) return hit.value as T;
    const value = await produce();
    if (value !== undefined) cache.set(key, { value, expiresAt: this.clock.now().getTime() + authorizer.resultTtlSeconds * 1000 });
    return value;
  }
}
