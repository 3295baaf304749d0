import { json } from '../support/json';
import { revokeApiKey } from '../../lambdas/core/api-keys';
import { suspendAccount } from '../../lambdas/core/accounts';
import { burst } from '../support/burst';
import { startTestService, type TestService } from '../support/local-service';
import { serviceStartTimeoutMs } from '../support/test-runtime';

const requestIdPattern = /^req_[A-Za-z0-9_-]{16,80}$/;
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
}, serviceStartTimeoutMs);
afterAll(() => service.close());

async function expectError(response: Response, status: number, code: string, reason?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('cache-control')).toBe('private, no-store');
  expect(response.headers.get('content-type')).toBe('application/json');
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toMatch(requestIdPattern);
  const details = reason ? { details: [{ reason }] } : {};
  expect(await json(response)).toEqual({ error: { code, message: expect.any(String), request_id: requestId, ...details } });
}

describe('authentication over HTTP', () => {
  it('serves a valid bearer key and charges one request', async () => {
    const { accountId, apiKey } = await service.account();
    const response = await service.request('/v1/domains', { key: apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(requestIdPattern);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await service.remaining(accountId)).toBe(99);
  });

  it.each([
    ['no Authorization header', {}],
    ['a Basic scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['a malformed key', { Authorization: 'Bearer not-a-key' }],
    ['an empty bearer', { Authorization: 'Bearer ' }],
  ])('answers %s with 401 invalid_api_key', async (_name, headers) => {
    await expectError(await service.request('/v1/domains', { headers }), 401, 'invalid_api_key');
  });

  it('answers an unknown but well-formed key with 401', async () => {
    const unknown = `tm_local_${'A'.repeat(43)}`;
    await expectError(await service.request('/v1/domains', { key: unknown }), 401, 'invalid_api_key');
  });

  it('rejects a key in the query string, even with a valid header, uncharged', async () => {
    const { accountId, apiKey } = await service.account();
    for (const query of [`?api_key=${apiKey}`, `?key=x`, `?token=${apiKey}`, `?note=${encodeURIComponent(apiKey)}`]) {
      await expectError(await service.request(`/v1/domains${query}`, { key: apiKey }), 401, 'invalid_api_key');
      await expectError(await service.request(`/v1/domains${query}`), 401, 'invalid_api_key');
    }
    expect(await service.remaining(accountId)).toBe(100);
  });

  it('rejects a key of another environment, uncharged', async () => {
    const staging = await service.account('free', 'staging');
    expect(staging.apiKey.startsWith('tm_staging_')).toBe(true);
    await expectError(await service.request('/v1/domains', { key: staging.apiKey }), 401, 'invalid_api_key');
    await expectError(await service.request('/v1/usage', { key: staging.apiKey }), 401, 'invalid_api_key');
    expect(await service.remaining(staging.accountId)).toBe(100);
  });

  it('rejects a revoked key from then on, uncharged', async () => {
    const { accountId, apiKey } = await service.account();
    expect((await service.request('/v1/domains', { key: apiKey })).status).toBe(200);
    await revokeApiKey(apiKey, service.runtime.services);
    await expectError(await service.request('/v1/domains', { key: apiKey }), 401, 'invalid_api_key');
    expect(await service.remaining(accountId)).toBe(99);
  });

  it('answers a suspended account with 403 forbidden on every route, uncharged', async () => {
    const { accountId, apiKey } = await service.account('paid');
    await suspendAccount(accountId, service.runtime.services);
    await expectError(await service.request('/v1/domains', { key: apiKey }), 403, 'forbidden');
    await expectError(await service.request('/v1/usage', { key: apiKey }), 403, 'forbidden');
    expect(await service.remaining(accountId)).toBe(10_000);
  });

  it('answers an unknown route with 404 in the error shape, before any authentication', async () => {
    const { accountId, apiKey } = await service.account();
    // The deployed gateway's own response: the request id in the body only (no X-Request-Id header).
    const expectGatewayError = async (response: Response) => {
      expect(response.status).toBe(404);
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      expect(response.headers.get('x-request-id')).toBeNull();
      expect((await json(response)).error).toMatchObject({ code: 'resource_not_found', request_id: expect.stringMatching(requestIdPattern) });
    };
    await expectGatewayError(await service.request('/v1/nothing-here', { key: apiKey }));
    await expectGatewayError(await service.request('/v1/domains', { key: apiKey, method: 'DELETE' }));
    expect(await service.remaining(accountId)).toBe(100);
  });

  it('answers 429 once the allowance is used up, with Retry-After and the allowance headers, uncharged', async () => {
    const { accountId, apiKey } = await service.account();
    expect(await burst(() => service.request('/v1/domains', { key: apiKey }), 100)).toEqual({ 200: 100 });
    const refused = await service.request('/v1/domains', { key: apiKey });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-limit')).toBe('100');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('ratelimit-reset'))).toBeGreaterThan(service.clock.now().getTime() / 1000);
    await expectError(refused, 429, 'rate_limit_exceeded', 'allowance_exhausted');
    expect(await service.remaining(accountId)).toBe(0);
    const usage = await service.request('/v1/usage', { key: apiKey });
    expect(usage.status).toBe(200);
    expect((await json(usage)).data).toMatchObject({ used_requests: 100, remaining_requests: 0 });
  });
});
