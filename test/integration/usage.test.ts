import { json } from '../support/json';
import { grantAllowance } from '../../lambdas/core/accounts';
import { startTestService, type TestService } from '../support/local-service';
import { serviceStartTimeoutMs } from '../support/test-runtime';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
}, serviceStartTimeoutMs);
afterAll(() => service.close());

async function usage(key: string) {
  const response = await service.request('/v1/usage', { key });
  expect(response.status).toBe(200);
  return { response, data: (await json(response)).data };
}

describe('GET /v1/usage', () => {
  it('reports a new free account: 100 requests for life, none used', async () => {
    const { apiKey } = await service.account('free');
    const { response, data } = await usage(apiKey);
    expect(data).toEqual({
      plan: 'free',
      allowance_mode: 'lifetime',
      used_requests: 0,
      remaining_requests: 100,
      additional_requests: 0,
    });
    expect(response.headers.get('ratelimit-limit')).toBe('100');
    expect(response.headers.get('ratelimit-remaining')).toBe('100');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
  });

  it('is never charged, and counts the charged requests', async () => {
    const { apiKey } = await service.account('free');
    for (let i = 0; i < 5; i++) await usage(apiKey);
    for (let i = 0; i < 3; i++) await service.request('/v1/domains', { key: apiKey });
    expect((await usage(apiKey)).data).toMatchObject({ used_requests: 3, remaining_requests: 97 });
  });

  it('reports a paid balance with the operator grant as additional allowance', async () => {
    const { accountId, apiKey } = await service.account('paid');
    await grantAllowance(accountId, 2_500, service.runtime.services);
    const { response, data } = await usage(apiKey);
    expect(data).toEqual({
      plan: 'paid',
      allowance_mode: 'balance',
      used_requests: 0,
      remaining_requests: 12_500,
      additional_requests: 2_500,
    });
    expect(response.headers.get('ratelimit-limit')).toBe('12500');
  });

  it('takes no parameters', async () => {
    const { accountId, apiKey } = await service.account('free');
    const response = await service.request('/v1/usage?verbose=1', { key: apiKey });
    expect(response.status).toBe(400);
    expect((await json(response)).error.details).toEqual([{ field: 'verbose', reason: 'is not a recognized parameter' }]);
    expect(await service.remaining(accountId)).toBe(100);
  });

  it('answers 304 to a matching If-None-Match, still uncharged', async () => {
    const { accountId, apiKey } = await service.account('free');
    const tag = (await usage(apiKey)).response.headers.get('etag')!;
    const again = await service.request('/v1/usage', { key: apiKey, headers: { 'If-None-Match': tag } });
    expect(again.status).toBe(304);
    expect(await service.remaining(accountId)).toBe(100);
  });
});

describe('the allowance over time', () => {
  it('gives a free account nothing new at the reset marker, or ever', async () => {
    const { apiKey } = await service.account('free');
    await service.request('/v1/domains', { key: apiKey });
    const first = await service.request('/v1/usage', { key: apiKey });
    const reset = Number(first.headers.get('ratelimit-reset'));
    expect(Number.isInteger(reset)).toBe(true);
    service.clock.advance((reset + 1) * 1000 - service.clock.now().getTime());
    const after = await service.request('/v1/usage', { key: apiKey });
    expect((await json(after)).data).toMatchObject({ used_requests: 1, remaining_requests: 99 });
    expect(Number(after.headers.get('ratelimit-reset'))).toBeGreaterThan(reset);
  });

  it('keeps a paid balance across a calendar-month boundary', async () => {
    const { apiKey } = await service.account('paid');
    await service.request('/v1/domains', { key: apiKey });
    service.clock.advance(40 * 24 * 60 * 60 * 1000);
    expect((await json(await service.request('/v1/usage', { key: apiKey }))).data).toMatchObject({
      used_requests: 1,
      remaining_requests: 9_999,
    });
  });
});
