import { createAuthorizer } from '../../lambdas/api/authorizer';
import { suspendAccount } from '../../lambdas/core/accounts';
import { startApiGateway } from '../../local/api-gateway';
import { routeTableApi } from '../../local/route-table-api';
import { contractFetch } from '../support/contract';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { onlyOn, serviceStartTimeoutMs } from '../support/test-runtime';
import { storageFaults } from '../support/storage-faults';

let service: TestService;
const faults = storageFaults();

beforeAll(async () => {
  service = await startTestService({}, { instrumentDynamoDb: (client) => faults.instrument(client) });
}, serviceStartTimeoutMs);
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

  onlyOn('npm start', "a storage fault injected into npm start's DynamoDB client", () => {
    it('does not charge a 503, and the same key then succeeds', async () => {
      const { apiKey } = await service.account('paid');
      faults.fail({ command: 'PutItemCommand', table: '-emails', times: 1 });
      const run = () => service.createEmail(apiKey, {}, 'charging-503-key-0001');
      expect(await chargeOf(apiKey, run, 503)).toBe(0);
      expect(faults.pending()).toBe(0);
      expect(await chargeOf(apiKey, run, 201)).toBe(1);
    });
  });
});

/**
 * Where the unit the authorizer reserved is never settled (docs/decisions.md, charging when the
 * route never settles): these pin the bound down, one unit per such request and no more.
 */
describe('charging when the route function cannot settle its unit', () => {
  it('keeps exactly the one reserved unit when the function fails outside its pipeline (a crash, a throttle)', async () => {
    const { accountId, apiKey } = await service.account('paid');
    // The same authorizer, in front of a function that dies before its pipeline can run, as a
    // function does that is throttled, fails to start or runs out of memory.
    const gateway = await startApiGateway({
      host: '127.0.0.1',
      port: 0,
      api: routeTableApi(
        createAuthorizer(() => service.runtime.services),
        new Map([['listDomains', { mode: 'buffered', fn: () => Promise.reject(new Error('Runtime exited')) }]]),
      ),
    });
    try {
      for (let i = 0; i < 3; i++) {
        const response = await contractFetch(`${gateway.url}/v1/domains`, { headers: { Authorization: `Bearer ${apiKey}` } });
        expect(response.status).toBe(500);
        expect((await json(response)).error.code).toBe('internal_error');
      }
    } finally {
      await gateway.close();
    }
    expect(await service.remaining(accountId)).toBe(10_000 - 3);
    expect(await used(apiKey)).toBe(3);
  });

  onlyOn('npm start', "a storage fault injected into npm start's DynamoDB client", () => {
    it('keeps the unit of a 503 whose refund failed, and logs the request and account', async () => {
      const { accountId, apiKey } = await service.account('paid');
      expect(await used(apiKey)).toBe(0); // opens the short window, so the next reservation is one update
      faults.fail({ command: 'GetItemCommand', table: '-emails', times: 1 });
      // The authorizer's reservation goes through; the refund after the 503 fails.
      faults.fail({ command: 'UpdateItemCommand', table: '-accounts', times: 1, after: 1 });
      const response = await service.request('/v1/emails/eml_AAAAAAAAAAAAAAAAAAAAAA', { key: apiKey });
      expect(response.status).toBe(503);
      expect(faults.pending()).toBe(0);
      expect(await service.remaining(accountId)).toBe(10_000 - 1);
      const requestId = response.headers.get('x-request-id');
      expect(service.logger.lines).toContainEqual(
        expect.objectContaining({ message: 'refund failed', request_id: requestId, account_id: accountId }),
      );
    });
  });
});
