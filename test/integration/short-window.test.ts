import { issueApiKey } from '../../lambdas/core/api-keys';
import { shortWindowLimits } from '../../lambdas/core/short-window';
import { burst as burstOf } from '../support/burst';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { onlyOn, serviceStartTimeoutMs, testRuntime } from '../support/test-runtime';

/**
 * The contract's per-key limit (300 a minute) is held at full scale on a service with the
 * defaults, on both runtimes. The rules that take more requests to show (uncharged operations
 * count, keys add up to the per-account limit, accounts stay apart) run on a service whose limits
 * are a tenth of the contract's, the local-only setting the benchmarks use: the same admission
 * path and the same conditional write, with the limits as values (`shortWindowLimits`, 300 and 600
 * in AWS and by default), and a tenth of the requests. The stack has no such setting (AWS runs the
 * contract's limits), so those run on `npm start` only: at full scale they would cost the stack
 * about a thousand more requests.
 */
const scaledLimits = { perKey: shortWindowLimits.perKey / 10, perAccount: shortWindowLimits.perAccount / 10 };
let service: TestService;
let scaled: TestService;

beforeAll(async () => {
  [service, scaled] = await Promise.all([
    startTestService(),
    testRuntime === 'npm start' ? startTestService({ shortWindow: scaledLimits }) : undefined,
  ]).then(([full, tenth]) => [full, tenth ?? full]);
}, serviceStartTimeoutMs);
afterAll(() => Promise.all([...new Set([service, scaled])].map((running) => running.close())));

/** Spends `count` requests of a key as fast as a client can, and tallies their statuses. */
const burst = (key: string, count: number, path = '/v1/domains', on = service) => burstOf(() => on.request(path, { key }), count);

describe('short-window limits', () => {
  beforeEach(() => {
    // Start each test at the beginning of a fresh minute.
    for (const { clock } of new Set([service, scaled])) clock.advance(60_000 - (clock.now().getTime() % 60_000));
  });

  it('allows 300 requests a minute per key, then 429 with Retry-After, uncharged', async () => {
    const { accountId, apiKey } = await service.account('paid');
    expect(await burst(apiKey, 300)).toEqual({ 200: 300 });
    service.clock.advance(45_000);
    const refused = await service.request('/v1/domains', { key: apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('15');
    expect(refused.headers.get('ratelimit-remaining')).toBe(String(10_000 - 300));
    expect((await json(refused)).error).toMatchObject({ code: 'rate_limit_exceeded', details: [{ reason: 'short_window_key' }] });
    expect(await service.remaining(accountId)).toBe(10_000 - 300);

    service.clock.advance(15_000);
    expect((await service.request('/v1/domains', { key: apiKey })).status).toBe(200);
  });

  onlyOn('npm start', "limits at a tenth of the contract's, a setting the stack does not have", () => {
    it('counts uncharged operations too, without touching the allowance', async () => {
      const { accountId, apiKey } = await scaled.account('free');
      expect(await burst(apiKey, scaledLimits.perKey, '/v1/usage', scaled)).toEqual({ 200: scaledLimits.perKey });
      expect((await scaled.request('/v1/usage', { key: apiKey })).status).toBe(429);
      expect((await scaled.request('/v1/domains', { key: apiKey })).status).toBe(429);
      expect(await scaled.remaining(accountId)).toBe(100);
    });

    it('allows the per-account number a minute across its keys', async () => {
      const { accountId, apiKey } = await scaled.account('paid');
      const second = await issueApiKey(accountId, scaled.runtime.services);
      const third = await issueApiKey(accountId, scaled.runtime.services);
      expect(await burst(apiKey, scaledLimits.perKey, '/v1/domains', scaled)).toEqual({ 200: scaledLimits.perKey });
      expect(await burst(second.apiKey, scaledLimits.perKey, '/v1/domains', scaled)).toEqual({ 200: scaledLimits.perKey });
      const refused = await scaled.request('/v1/domains', { key: third.apiKey });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The third key is fresh: the account's window refused it, and the reason says so.
      expect((await json(refused)).error).toMatchObject({ code: 'rate_limit_exceeded', details: [{ reason: 'short_window_account' }] });
      expect(await scaled.remaining(accountId)).toBe(10_000 - scaledLimits.perAccount);
    });

    it('keeps accounts apart', async () => {
      const busy = await scaled.account('paid');
      const quiet = await scaled.account('paid');
      expect(await burst(busy.apiKey, scaledLimits.perKey + 1, '/v1/domains', scaled)).toEqual({ 200: scaledLimits.perKey, 429: 1 });
      expect((await scaled.request('/v1/domains', { key: quiet.apiKey })).status).toBe(200);
    });
  });
});
