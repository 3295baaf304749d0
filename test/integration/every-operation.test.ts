import { suspendAccount } from '../../lambdas/core/accounts';
import { contract } from '../support/contract';
import { json } from '../support/json';
import { startTestService, type TestService } from '../support/local-service';
import { serviceStartTimeoutMs } from '../support/test-runtime';

/**
 * The answers the authorizer and the request checks give alike on every operation of the
 * document: 400 on a malformed request, 401 without a valid key, 403 for a suspended account,
 * 429 once the allowance is used up. Each operation is met here, so the contract-coverage check
 * (test/support/contract-coverage.ts) finds every one of these statuses exercised.
 */
let service: TestService;
beforeAll(async () => {
  service = await startTestService();
}, serviceStartTimeoutMs);
afterAll(() => service.close());

const operations = contract().operations.map(({ method, template }) => ({
  name: `${method} ${template}`,
  method,
  /** A path of the operation with well-formed identifiers of nothing. */
  path: template.replace(/\{(\w{3})[^}]*\}/g, (_whole, prefix: string) => `${prefix}_0123456789abcdef`),
  /** The same operation, malformed: an identifier of another shape, or a parameter it does not take. */
  malformed: template.includes('{') ? template.replace(/\{[^}]+\}/g, 'not-an-id') : `${template}?unknown=1`,
}));

/** A request as a client sends it: a create carries its JSON body and Idempotency-Key. */
function send(method: string, path: string, key?: string) {
  const create = method === 'POST';
  return service.request(path, {
    method,
    key,
    headers: create ? { 'Content-Type': 'application/json', 'Idempotency-Key': `every-operation-${Math.random().toString(36).slice(2)}` } : {},
    body: create ? '{}' : undefined,
  });
}

async function expectCode(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect((await json(response)).error.code).toBe(code);
}

describe('every operation of the document', () => {
  it('answers a malformed request with 400 invalid_request naming the field', async () => {
    const { apiKey } = await service.account('paid');
    for (const { method, malformed } of operations) {
      const response = await send(method, malformed, apiKey);
      expect(response.status).toBe(400);
      expect((await json(response)).error.details).toEqual([expect.objectContaining({ field: expect.any(String) })]);
    }
  });

  it('answers a request without a valid key with 401 invalid_api_key', async () => {
    for (const { method, path } of operations) {
      await expectCode(await send(method, path), 401, 'invalid_api_key');
      await expectCode(await send(method, path, 'tm_local_not-a-real-key'), 401, 'invalid_api_key');
    }
  });

  it('answers a suspended account with 403 forbidden', async () => {
    const { accountId, apiKey } = await service.account('paid');
    await suspendAccount(accountId, service.runtime.services);
    for (const { method, path } of operations) await expectCode(await send(method, path, apiKey), 403, 'forbidden');
  });

  it('answers 429 rate_limit_exceeded once the allowance is used up', async () => {
    const { apiKey } = await service.account('free');
    for (let i = 0; i < 100; i++) expect((await send('GET', '/v1/domains', apiKey)).status).toBe(200);
    for (const { name, method, path } of operations) {
      if (name === 'GET /v1/usage') continue; // never charged: it answers a used-up allowance with 200
      const response = await send(method, path, apiKey);
      await expectCode(response, 429, 'rate_limit_exceeded');
      expect(response.headers.get('ratelimit-remaining')).toBe('0');
    }
  });
});
