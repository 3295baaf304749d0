import { issueApiKey } from '../../lambdas/core/api-keys';
import { burst as burstOf } from '../support/burst';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

/** Spends `count` requests of a key as fast as a client can, and tallies their statuses. */
const burst = (key: string, count: number, path = '/v1/domains') => burstOf(() => service.request(path, { key }), count);

describe('short-window limits', () => {
  beforeEach(() => {
    // Start each test at the beginning of a fresh minute.
    const now = service.clock.now().getTime();
    service.clock.advance(60_000 - (now % 60_000));
  });

  it('allows 300 requests a minute per key, then 429 with Retry-After, uncharged', async () => {
    const { accountId, apiKey } = await service.account('paid');
    expect(await burst(apiKey, 300)).toEqual({ 200: 300 });
    service.clock.advance(45_000);
    const refused = await service.request('/v1/domains', { key: apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('15');
    expect(refused.headers.get('ratelimit-remaining')).toBe(String(10_000 - 300));
    expect((await json(refused)).error.code).toBe('rate_limit_exceeded');
    expect(await service.remaining(accountId)).toBe(10_000 - 300);

    service.clock.advance(15_000);
    expect((await service.request('/v1/domains', { key: apiKey })).status).toBe(200);
  });

  it('counts uncharged operations too, without touching the allowance', async () => {
    const { accountId, apiKey } = await service.account('free');
    expect(await burst(apiKey, 300, '/v1/usage')).toEqual({ 200: 300 });
    expect((await service.request('/v1/usage', { key: apiKey })).status).toBe(429);
    expect((await service.request('/v1/domains', { key: apiKey })).status).toBe(429);
    expect(await service.remaining(accountId)).toBe(100);
  });

  it('allows 600 requests a minute per account across its keys', async () => {
    const { accountId, apiKey } = await service.account('paid');
    const second = await issueApiKey(accountId, service.runtime.services);
    const third = await issueApiKey(accountId, service.runtime.services);
    expect(await burst(apiKey, 300)).toEqual({ 200: 300 });
    expect(await burst(second.apiKey, 300)).toEqual({ 200: 300 });
    const refused = await service.request('/v1/domains', { key: third.apiKey });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await service.remaining(accountId)).toBe(10_000 - 600);
  });

  it('keeps accounts apart', async () => {
    const busy = await service.account('paid');
    const quiet = await service.account('paid');
    await burst(busy.apiKey, 301);
    expect((await service.request('/v1/domains', { key: quiet.apiKey })).status).toBe(200);
  });
});
