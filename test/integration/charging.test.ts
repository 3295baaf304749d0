import { suspendAccount } from '../../lambdas/core/accounts';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { storageFaults } from '../support/storage-faults';

let service: TestService;
const faults = storageFaults();

beforeAll(async () => {
  service = await startTestService({}, { instrumentDynamoDb: (client) => faults.instrument(client) });
});
afterAll(() => service.close());

/** The used requests the usage record reports: the authority (contract: Limits, rule 2). */
async function used(key: string): Promise<number> {
  const response = await service.request('/v1/usage', { key });
  expect(response.status).toBe(200);
  return (await json(response)).data.used_requests;
}

/** Runs one request and returns how many requests it was charged, as the usage record saw it. */
async function chargeOf(key: string, run: () => Promise<Response>, expectedStatus: number): Promise<number> {
  const before = await used(key);
  const response = await run();
  expect(response.status).toBe(expectedStatus);
  return (await used(key)) - before;
}

describe("every row of the contract's charging table, through GET /v1/usage", () => {
  it('charges a completed authenticated request', async () => {
    const { apiKey } = await service.account('paid');
    expect(await chargeOf(apiKey, () => service.createEmail(apiKey, {}), 201)).toBe(1);
    expect(await chargeOf(apiKey, () => service.request('/v1/domains', { key: apiKey }), 200)).toBe(1);
  });

  it('charges a 304 conditional response', async () => {
    const { apiKey } = await service.account('paid');
    const tag = (await service.request('/v1/domains', { key: apiKey })).headers.get('etag')!;
    const run = () => service.request('/v1/domains', { key: apiKey, headers: { 'If-None-Match': tag } });
    expect(await chargeOf(apiKey, run, 304)).toBe(1);
  });

  it('charges authenticated 400, 404, 409 and 422', async () => {
    const { apiKey } = await service.account('paid');
    await service.createEmail(apiKey, { local_part: 'charged-conflict' });
    expect(await chargeOf(apiKey, () => service.createEmail(apiKey, { bogus: 1 }), 400)).toBe(1);
    expect(await chargeOf(apiKey, () => service.request('/v1/emails/eml_AAAAAAAAAAAAAAAAAAAAAA', { key: apiKey }), 404)).toBe(1);
    expect(await chargeOf(apiKey, () => service.createEmail(apiKey, { local_part: 'charged-conflict' }), 409)).toBe(1);
    expect(await chargeOf(apiKey, () => service.createEmail(apiKey, { local_part: 'postmaster' }), 422)).toBe(1);
  });

  it('does not charge an exact successful replay of a create', async () => {
    const { apiKey } = await service.account('paid');
    await service.createEmail(apiKey, {}, 'charging-replay-0001');
    expect(await chargeOf(apiKey, () => service.createEmail(apiKey, {}, 'charging-replay-0001'), 201)).toBe(0);
  });

  it('does not charge GET /v1/usage', async () => {
    const { apiKey } = await service.account('paid');
    expect(await chargeOf(apiKey, () => service.request('/v1/usage', { key: apiKey }), 200)).toBe(0);
  });

  it('does not charge 401, 403, 413 or 429', async () => {
    const { accountId, apiKey } = await service.account('free');
    expect(await chargeOf(apiKey, () => service.request('/v1/domains', { key: `tm_local_${'B'.repeat(43)}` }), 401)).toBe(0);
    expect(await chargeOf(apiKey, () => service.request(`/v1/domains?api_key=${apiKey}`, { key: apiKey }), 401)).toBe(0);
    expect(await chargeOf(apiKey, () => service.createEmail(apiKey, { local_part: 'y'.repeat(20_000) }), 413)).toBe(0);
    for (let i = (await used(apiKey)); i < 100; i++) await service.request('/v1/domains', { key: apiKey });
    expect(await chargeOf(apiKey, () => service.request('/v1/domains', { key: apiKey }), 429)).toBe(0);
    await suspendAccount(accountId, service.runtime.services);
    const forbidden = await service.request('/v1/domains', { key: apiKey });
    expect(forbidden.status).toBe(403);
    expect(await service.remaining(accountId)).toBe(0);
  });

  it('does not charge a 503, and the same key then succeeds', async () => {
    const { apiKey } = await service.account('paid');
    faults.fail({ command: 'PutItemCommand', table: '-emails', times: 1 });
    const run = () => service.createEmail(apiKey, {}, 'charging-503-key-0001');
    expect(await chargeOf(apiKey, run, 503)).toBe(0);
    expect(faults.pending()).toBe(0);
    expect(await chargeOf(apiKey, run, 201)).toBe(1);
  });
});
