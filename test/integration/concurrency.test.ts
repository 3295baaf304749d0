import { idempotencyLeaseMs, idempotencyLifetimeMs, idempotencyRecordKey, requestHash } from '../../lambdas/core/idempotency';
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

  it('answers 4 simultaneous creates with one key for a taken address the same 409, each charged, and later replays too', async () => {
    const holder = await service.account('paid');
    expect((await service.createEmail(holder.apiKey, { local_part: 'already-taken' })).status).toBe(201);
    const { accountId, apiKey } = await service.account('paid');
    const key = 'taken-address-key-0001';
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => service.createEmail(apiKey, { local_part: 'already-taken' }, key)),
    );
    expect(tally(responses.map((response) => response.status))).toEqual({ 409: 4 });
    for (const response of responses) {
      expect((await json(response)).error.code).toBe('address_unavailable');
      expect(response.headers.get('idempotency-replayed')).toBeNull();
    }
    expect(await service.remaining(accountId)).toBe(10_000 - 4);

    const later = await service.createEmail(apiKey, { local_part: 'already-taken' }, key);
    expect(later.status).toBe(409);
    expect((await json(later)).error.code).toBe('address_unavailable');
    expect(await service.remaining(accountId)).toBe(10_000 - 5);
    const otherBody = await service.createEmail(apiKey, { local_part: 'not-taken-yet' }, key);
    expect(otherBody.status).toBe(201);
  });

  it('answers a duplicate 503 with Retry-After at the end of the lease a dead attempt holds, then resumes its plan', async () => {
    const { accountId, apiKey } = await service.account('paid');
    const key = 'dead-attempt-key-00001';
    const now = service.clock.now().getTime();
    // What a process killed in the middle of a create leaves behind: a record in progress, its lease running.
    await service.runtime.services.idempotency.begin(
      {
        recordKey: idempotencyRecordKey(accountId, 'createEmail', key),
        requestHash: requestHash({ local_part: 'lease-held' }),
        status: 'in_progress',
        emailId: 'eml_DeadAttemptPlanned0001',
        address: 'lease-held@tempmail.localhost',
        localPart: 'lease-held',
        domain: 'tempmail.localhost',
        leaseUntil: now + idempotencyLeaseMs,
        leaseToken: 'killed-process-lease',
        expiresAt: now + idempotencyLifetimeMs,
      },
      now,
    );
    const waiting = await service.createEmail(apiKey, { local_part: 'lease-held' }, key);
    expect(waiting.status).toBe(503);
    expect(waiting.headers.get('retry-after')).toBe(String(idempotencyLeaseMs / 1000));
    service.clock.advance(idempotencyLeaseMs - 3_500);
    const later = await service.createEmail(apiKey, { local_part: 'lease-held' }, key);
    expect(later.status).toBe(503);
    expect(later.headers.get('retry-after')).toBe('4');
    service.clock.advance(3_500);
    const resumed = await service.createEmail(apiKey, { local_part: 'lease-held' }, key);
    expect(resumed.status).toBe(201);
    expect((await json(resumed)).data).toMatchObject({ id: 'eml_DeadAttemptPlanned0001', address: 'lease-held@tempmail.localhost' });
    expect(await service.remaining(accountId)).toBe(10_000 - 1);
  });
});
