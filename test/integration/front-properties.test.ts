import assert from 'node:assert/strict';
import fc from 'fast-check';
import { contractRequest } from '../support/contract';
import { startTestService, type TestService } from '../support/local-service';

/**
 * The local front (API Gateway's stand-in) over HTTP, with fast-check paths. Over real HTTP each
 * case costs a round trip, so this property runs 2,000 cases over one service; the route matcher
 * it calls is held to 10,000 cases in-process (test/unit/api/properties.test.ts).
 */
const numRuns = 2_000;

let service: TestService;
let apiKey: string;
beforeAll(async () => {
  service = await startTestService();
  apiKey = (await service.account('paid')).apiKey;
});
afterAll(() => service.close());

/** One request with the path exactly as given (no normalization by a client library), its answer checked against the document. */
async function send(method: string, path: string, key?: string): Promise<{ status: number; body: string }> {
  const answer = await contractRequest(service.runtime.apiUrl, path, { method, headers: key ? { Authorization: `Bearer ${key}` } : {} });
  return { status: answer.status, body: answer.body.toString('utf8') };
}

/** Characters a request target may carry as sent (RFC 3986 plus `%` escapes, valid or not). */
const pathChar = fc.constantFrom(...'abcXYZ019-._~!$&\'()*+,;=:@%/?#[]'.split(''), '%00', '%2F', '%2e%2e', '%E0%A4%A', '%ZZ', '%C0%AF', 'eml_0123456789', 'msg_0123456789', 'v1', 'emails', 'messages', 'source', 'attachments');
const pathArbitrary = fc.oneof(
  fc.array(pathChar, { maxLength: 30 }).map((parts) => `/${parts.join('')}`),
  fc.array(fc.oneof(pathChar, fc.constantFrom('', '..', '.')), { maxLength: 6 }).map((segments) => `/v1/${segments.join('/')}`),
);

describe('the local front (fast-check over HTTP)', () => {
  it(`answers every path with a status and, for an error, the contract's error shape; it never fails (${numRuns} cases)`, async () => {
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'), pathArbitrary, fc.boolean(), async (method, path, withKey) => {
        if (++requests % 250 === 0) service.clock.advance(60_000);
        const response = await send(method, path, withKey ? apiKey : undefined);
        // node:assert inside the property: Jest's expect builds an error for its stack on every call, pass or fail.
        assert.ok(response.status >= 200 && response.status < 600, `status ${response.status}`);
        if (response.status >= 400) {
          const body = JSON.parse(response.body) as { error?: Record<string, unknown> };
          assert.deepEqual(Object.keys(body), ['error']);
          for (const field of ['code', 'message', 'request_id']) assert.equal(typeof body.error?.[field], 'string', `error.${field} of ${response.body}`);
        }
      }),
      { numRuns },
    );
    // Still serving after every case.
    expect((await send('GET', '/v1/usage', apiKey)).status).toBe(200);
  }, 120_000);
});
