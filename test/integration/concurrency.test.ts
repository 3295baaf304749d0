import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

function tally(statuses: number[]): Record<number, number> {
  return statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});
}

describe('under concurrency', () => {
  it('serves exactly 100 of 150 simultaneous charged requests on a free account, and refuses 50 with 429', async () => {
    const { accountId, apiKey } = await service.account('free');
    const responses = await Promise.all(
      Array.from({ length: 150 }, () => service.request('/v1/domains', { key: apiKey })),
    );
    expect(tally(responses.map((response) => response.status))).toEqual({ 200: 100, 429: 50 });
    for (const response of responses.filter((r) => r.status === 429)) {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('ratelimit-remaining')).toBe('0');
    }
    expect(await service.remaining(accountId)).toBe(0);
    const usage = (await json(await service.request('/v1/usage', { key: apiKey }))).data;
    expect(usage).toMatchObject({ used_requests: 100, remaining_requests: 0 });
  });

  it('creates one email for 12 simultaneous creates with one key and body, charged once', async () => {
    const { accountId, apiKey } = await service.account('free');
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => service.createEmail(apiKey, { local_part: 'racing-key' }, 'concurrent-key-000001')),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(201));
    const bodies = await Promise.all(responses.map((response) => json(response)));
    expect(new Set(bodies.map((body) => body.data.id)).size).toBe(1);
    const replayed = responses.map((response) => response.headers.get('idempotency-replayed'));
    expect(replayed.filter((value) => value === 'false')).toHaveLength(1);
    expect(replayed.filter((value) => value === 'true')).toHaveLength(11);
    expect(await service.remaining(accountId)).toBe(99);
  });

  it('gives one of 16 simultaneous creates of the same address from two accounts a 201, the rest 409', async () => {
    const first = await service.account('paid');
    const second = await service.account('paid');
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) => service.createEmail(i % 2 ? first.apiKey : second.apiKey, { local_part: 'contested' })),
    );
    const statuses = responses.map((response) => response.status);
    expect(tally(statuses)).toEqual({ 201: 1, 409: 15 });
    for (const response of responses.filter((r) => r.status === 409)) {
      expect((await json(response)).error.code).toBe('address_unavailable');
    }
  });
});
