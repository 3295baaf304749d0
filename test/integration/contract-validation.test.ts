import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Config } from '@jest/types';
import { assertConformsToContract, ContractDrift, contractFetch, documentedPairs } from '../support/contract';
import { coverageProblems, isWholeRun } from '../support/contract-coverage';

/**
 * The integration suites check every response against openapi/openapi.yaml through
 * `contractFetch`. These tests prove the check catches drift: a stand-in server answers a
 * conforming response, then the same response with one deliberate fault each.
 */

interface Canned {
  status: number;
  headers: Record<string, string>;
  body: string;
}

let server: Server;
let baseUrl: string;
let next: Canned;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(next.status, next.headers);
    res.end(next.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const requestId = 'req_0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
const common = {
  'Content-Type': 'application/json',
  'Cache-Control': 'private, no-store',
  'X-Request-Id': requestId,
  'RateLimit-Limit': '100',
  'RateLimit-Remaining': '97',
  'RateLimit-Reset': '1798761600',
};
const usage = { plan: 'free', allowance_mode: 'lifetime', used_requests: 3, remaining_requests: 97, additional_requests: 0 };
const usageResponse = (): Canned => ({
  status: 200,
  headers: { ...common, ETag: '"q3Vd8xk2P0rJb6mYt1cNw4sLh7aZeF9u"' },
  body: JSON.stringify({ data: usage }),
});

async function problemsOf(method: string, path: string, canned: Canned): Promise<string[]> {
  next = canned;
  try {
    const response = await contractFetch(`${baseUrl}${path}`, { method });
    await response.arrayBuffer();
    return [];
  } catch (error) {
    if (error instanceof ContractDrift) return error.problems;
    throw error;
  }
}

describe('response validation against openapi/openapi.yaml', () => {
  it('lets a conforming response through, body intact', async () => {
    next = usageResponse();
    const response = await contractFetch(`${baseUrl}/v1/usage`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: usage });
  });

  it('catches a property the schema does not list', async () => {
    const canned = usageResponse();
    canned.body = JSON.stringify({ data: { ...usage, credits: 5 } });
    expect(await problemsOf('GET', '/v1/usage', canned)).toEqual([
      expect.stringMatching(/^GET \/v1\/usage 200: body \/data must NOT have additional properties/),
    ]);
  });

  it('catches a missing or mistyped body property', async () => {
    const canned = usageResponse();
    const { used_requests: _used, ...rest } = usage;
    canned.body = JSON.stringify({ data: { ...rest, remaining_requests: '97' } });
    const [problem] = await problemsOf('GET', '/v1/usage', canned);
    expect(problem).toMatch(/must have required property 'used_requests'/);
    expect(problem).toMatch(/\/data\/remaining_requests must be integer/);
  });

  it('catches a status the operation does not document', async () => {
    const canned = usageResponse();
    canned.status = 202;
    expect(await problemsOf('GET', '/v1/usage', canned)).toEqual([
      expect.stringMatching(/^GET \/v1\/usage: status 202 is not documented/),
    ]);
  });

  it('catches a missing required header', async () => {
    const canned = usageResponse();
    delete (canned.headers as Record<string, string>)['X-Request-Id'];
    expect(await problemsOf('GET', '/v1/usage', canned)).toContain('GET /v1/usage 200: header X-Request-Id is missing');
  });

  it('catches a header value outside its schema', async () => {
    const canned = usageResponse();
    canned.headers['Cache-Control'] = 'public, max-age=60';
    canned.headers['RateLimit-Remaining'] = '-1';
    const problems = await problemsOf('GET', '/v1/usage', canned);
    expect(problems).toContainEqual(expect.stringMatching(/header Cache-Control: "public, max-age=60" .*constant/));
    expect(problems).toContainEqual(expect.stringMatching(/header RateLimit-Remaining: "-1" .*>= 0/));
  });

  it('catches a header the document does not list', async () => {
    const canned = usageResponse();
    canned.headers['X-Powered-By'] = 'Express';
    expect(await problemsOf('GET', '/v1/usage', canned)).toEqual([
      'GET /v1/usage 200: header x-powered-by is not documented for this response',
    ]);
  });

  it('catches a media type the response does not document', async () => {
    const canned = usageResponse();
    canned.headers['Content-Type'] = 'text/html';
    expect(await problemsOf('GET', '/v1/usage', canned)).toEqual([
      'GET /v1/usage 200: Content-Type text/html is not one of application/json',
    ]);
  });

  it('catches has_more without a next_cursor, and a cursor on the last page', async () => {
    const page = (pagination: object): Canned => ({
      status: 200,
      headers: { ...common, ETag: '"tag"' },
      body: JSON.stringify({ data: [], pagination }),
    });
    expect(await problemsOf('GET', '/v1/domains', page({ has_more: true }))).toEqual([
      expect.stringMatching(/body \/pagination must have required property 'next_cursor'/),
    ]);
    expect(await problemsOf('GET', '/v1/domains', page({ has_more: false, next_cursor: 'abc' }))).toEqual([
      expect.stringMatching(/\/pagination must NOT have additional properties/),
    ]);
  });

  it('catches an error whose code or request id is not the one of its status', async () => {
    const error = (code: string, id: string): Canned => ({
      status: 404,
      headers: common,
      body: JSON.stringify({ error: { code, message: 'No.', request_id: id } }),
    });
    expect(await problemsOf('GET', '/v1/emails/eml_0123456789abcdef', error('resource_not_found', requestId))).toEqual([]);
    expect(await problemsOf('GET', '/v1/emails/eml_0123456789abcdef', error('not_found', requestId))).toEqual([
      expect.stringMatching(/body \/error\/code must be equal to constant/),
    ]);
    expect(await problemsOf('GET', '/v1/emails/eml_0123456789abcdef', error('resource_not_found', 'req_other-request-id-0001'))).toEqual([
      expect.stringMatching(/error.request_id req_other-request-id-0001 differs from X-Request-Id/),
    ]);
  });

  it("accepts the gateway's own error without X-Request-Id only when it is a row of the gateway table naming its x-amzn-RequestId", async () => {
    const gatewayError = (id: string, message: string): Canned => ({
      status: 500,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-store', 'x-amzn-RequestId': 'a1b2c3d4-0000-4000-8000-000000000001' },
      body: JSON.stringify({ error: { code: 'internal_error', message, request_id: id } }),
    });
    const failed = 'The service failed before completing the request.';
    expect(await problemsOf('GET', '/v1/usage', gatewayError('req_a1b2c3d4-0000-4000-8000-000000000001', failed))).toEqual([]);
    expect(await problemsOf('GET', '/v1/usage', gatewayError('req_a1b2c3d4-0000-4000-8000-000000000002', failed))).toEqual(
      expect.arrayContaining([expect.stringMatching(/header X-Request-Id is missing/)]),
    );
    expect(await problemsOf('GET', '/v1/usage', gatewayError('req_a1b2c3d4-0000-4000-8000-000000000001', 'Something else.'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/header X-Request-Id is missing/)]),
    );
  });

  describe("holds a gateway-made answer to its own row of the gateway table, for its route and status", () => {
    const gatewayId = 'a1b2c3d4-0000-4000-8000-000000000009';
    const made = (status: number, code: string, message: string, headers: Record<string, string> = {}, details?: { reason: string }[]): Canned => ({
      status,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-store', 'x-amzn-RequestId': gatewayId, ...headers },
      body: JSON.stringify({ error: { code, message, request_id: `req_${gatewayId}`, ...(details ? { details } : {}) } }),
    });
    const noRoute = () => made(404, 'resource_not_found', 'No such route.');
    const throttled = (headers: Record<string, string> = {}) => made(429, 'rate_limit_exceeded', 'Too many requests; slow down.', headers, [{ reason: 'gateway_throttle' }]);

    it("takes the no-route 404 only where no operation matches", async () => {
      expect(await problemsOf('DELETE', '/v1/usage', noRoute())).toEqual([]);
      expect(await problemsOf('GET', '/v1/usage', noRoute())).toEqual([expect.stringMatching(/the gateway's no-route answer on a route of GET \/v1\/usage/)]);
      expect(await problemsOf('DELETE', '/v1/usage', made(500, 'internal_error', 'The service failed before completing the request.'))).toEqual([
        expect.stringMatching(/only with its no-route 404/),
      ]);
    });

    it("takes a row only on an operation that documents its status", async () => {
      expect(await problemsOf('POST', '/v1/emails', made(413, 'payload_too_large', 'The request body is too large.'))).toEqual([]);
      expect(await problemsOf('GET', '/v1/usage', made(413, 'payload_too_large', 'The request body is too large.'))).toEqual([
        expect.stringMatching(/GET \/v1\/usage does not document status 413/),
      ]);
    });

    it("wants the row's headers, value for value, and no other", async () => {
      expect(await problemsOf('GET', '/v1/usage', throttled({ 'Retry-After': '1' }))).toEqual([]);
      expect(await problemsOf('GET', '/v1/usage', throttled())).toEqual([expect.stringMatching(/header retry-after is missing/)]);
      expect(await problemsOf('GET', '/v1/usage', throttled({ 'Retry-After': '30' }))).toEqual([expect.stringMatching(/header retry-after: "30" is not the row's "1"/)]);
      expect(await problemsOf('GET', '/v1/usage', throttled({ 'Retry-After': '1', 'RateLimit-Remaining': '5' }))).toEqual([
        expect.stringMatching(/header ratelimit-remaining is not one the gateway's row gives/),
      ]);
    });

    it("takes the gateway's 429 only with the reason its row names", async () => {
      const withoutReason = made(429, 'rate_limit_exceeded', 'Too many requests; slow down.', { 'Retry-After': '1' });
      expect(await problemsOf('GET', '/v1/usage', withoutReason)).toEqual(expect.arrayContaining([expect.stringMatching(/header X-Request-Id is missing/)]));
    });
  });

  it('fails the read of a file body that ends at another length than its Content-Length', async () => {
    const url = new URL('http://127.0.0.1/v1/messages/msg_0123456789abcdef/source');
    const file = (bytes: number, declared: string) =>
      new Response(new Uint8Array(bytes), {
        status: 200,
        headers: {
          ...common,
          'Content-Type': 'message/rfc822',
          ETag: '"abc"',
          'Content-Disposition': `attachment; filename="m.eml"; filename*=UTF-8''m.eml`,
          'Content-Length': declared,
          'X-Content-Type-Options': 'nosniff',
          'Content-Security-Policy': "default-src 'none'; sandbox",
        },
      });
    expect((await (await assertConformsToContract('GET', url, file(25, '25'))).arrayBuffer()).byteLength).toBe(25);
    await expect((await assertConformsToContract('GET', url, file(20, '25'))).arrayBuffer()).rejects.toThrow('the file body is 20 bytes, but Content-Length says 25');
    await expect((await assertConformsToContract('GET', url, file(30, '25'))).arrayBuffer()).rejects.toThrow(ContractDrift);
  });

  describe('coverage of the document by the suites', () => {
    const wholeRun = { testPathPatterns: { patterns: [] }, testNamePattern: undefined, onlyChanged: false, onlyFailures: false, findRelatedTests: false, nonFlagArgs: [], shard: undefined } as unknown as Config.GlobalConfig;

    it('fails a whole run on a documented (operation, status) pair no suite received, and on a stale excuse', () => {
      const documented = documentedPairs();
      expect(documented).toEqual(expect.arrayContaining(['GET /v1/usage 200', 'POST /v1/emails 422', 'GET /v1/messages/{message_id}/source 304']));
      const exercised = new Set(documented.filter((pair) => pair !== 'GET /v1/usage 304'));
      expect(coverageProblems(documented, exercised, {})).toEqual(['GET /v1/usage 304 is documented, but no suite received it']);
      expect(coverageProblems(documented, exercised, { 'GET /v1/usage 304': 'a reason' })).toEqual([]);
      expect(coverageProblems(documented, new Set(documented), { 'GET /v1/usage 304': 'a reason' })).toEqual([
        expect.stringMatching(/GET \/v1\/usage 304 is listed as unexercisable .* but a suite received it/),
      ]);
    });

    it('judges only a run of the whole suite', () => {
      expect(isWholeRun(wholeRun)).toBe(true);
      expect(isWholeRun({ ...wholeRun, testPathPatterns: { patterns: ['test/unit'] } } as unknown as Config.GlobalConfig)).toBe(false);
      expect(isWholeRun({ ...wholeRun, testNamePattern: 'usage' })).toBe(false);
      expect(isWholeRun({ ...wholeRun, onlyChanged: true })).toBe(false);
      expect(isWholeRun({ ...wholeRun, shard: { shardIndex: 1, shardCount: 2 } })).toBe(false);
    });
  });

  it('catches a 429 without Retry-After', async () => {
    const canned: Canned = {
      status: 429,
      headers: common,
      body: JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Slow down.', request_id: requestId } }),
    };
    expect(await problemsOf('GET', '/v1/usage', canned)).toEqual(['GET /v1/usage 429: header Retry-After is missing']);
  });

  it('accepts a bodiless 304, and catches a file download that is not forced as one', async () => {
    const notModified: Canned = { status: 304, headers: { ...common, ETag: '"tag"' }, body: '' };
    delete (notModified.headers as Record<string, string>)['Content-Type'];
    expect(await problemsOf('GET', '/v1/messages/msg_0123456789abcdef', notModified)).toEqual([]);

    const file: Canned = {
      status: 200,
      headers: {
        ...common,
        'Content-Type': 'application/octet-stream',
        ETag: '"abc"',
        'Content-Disposition': 'inline; filename="page.html"',
        'Content-Length': '25',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
      },
      body: '<script>alert(1)</script>',
    };
    expect(await problemsOf('GET', '/v1/messages/msg_0123456789abcdef/attachments/att_0123456789abcdef', file)).toEqual([
      expect.stringMatching(/header Content-Disposition: "inline; .* must match pattern/),
    ]);
    file.headers['Content-Disposition'] = `attachment; filename="page.html"; filename*=UTF-8''page.html`;
    expect(await problemsOf('GET', '/v1/messages/msg_0123456789abcdef/attachments/att_0123456789abcdef', file)).toEqual([]);
  });

  describe('holds every response to what the contract and the service promise, not only to its shape', () => {
    const email = {
      id: 'eml_3q2-7wEjSkK4gQe1N5bX0A',
      address: 'signup-test-42@tempmail.localhost',
      local_part: 'signup-test-42',
      domain: 'tempmail.localhost',
      status: 'active',
      created_at: '2026-11-23T20:00:00.000Z',
      expires_at: '2026-12-23T20:00:00.000Z',
    };
    const message = {
      id: 'msg_Vb0kq8Zt3nR1cX7yJ2mW5A',
      email_id: email.id,
      from: 'Example <noreply@example.com>',
      to: ['signup-test-42@tempmail.localhost'],
      subject: 'Your code',
      received_at: '2026-11-23T20:01:00.000Z',
      expires_at: '2026-11-23T20:16:00.000Z',
      size_bytes: 2841,
      attachment_count: 1,
      text: 'Your code is 482913.',
      html: '',
      attachments: [
        {
          id: 'att_p9Lr2QeT7uYk0sDf4GhJ6w',
          filename: 'terms.pdf',
          content_type: 'application/pdf',
          size_bytes: 1024,
          expires_at: '2026-11-23T20:16:00.000Z',
          download_path: '/v1/messages/msg_Vb0kq8Zt3nR1cX7yJ2mW5A/attachments/att_p9Lr2QeT7uYk0sDf4GhJ6w',
        },
      ],
      source_path: '/v1/messages/msg_Vb0kq8Zt3nR1cX7yJ2mW5A/source',
    };
    const read = (data: object): Canned => ({ status: 200, headers: { ...common, ETag: '"tag"' }, body: JSON.stringify({ data }) });
    const error = (status: number, fields: object): Canned => ({
      status,
      headers: common,
      body: JSON.stringify({ error: { message: 'No.', request_id: requestId, ...fields } }),
    });

    it('lets the conforming ones through', async () => {
      expect(await problemsOf('GET', `/v1/emails/${email.id}`, read(email))).toEqual([]);
      expect(await problemsOf('GET', `/v1/messages/${message.id}`, read(message))).toEqual([]);
      expect(await problemsOf('GET', '/v1/usage', read({ ...usage, plan: 'paid', allowance_mode: 'balance' }))).toEqual([]);
    });

    it.each([
      ['a local part the contract does not allow', { local_part: 'Signup Test' }],
      ['an address that is not local_part@domain', { address: 'signup-test-42@@tempmail' }],
      ['a domain that is not a lower-case hostname', { domain: 'TempMail' }],
      ['a read of an expired email', { status: 'expired' }],
      ['a date-time that is not the service\'s UTC instant', { created_at: '2026-11-23 20:00' }],
    ])('catches an Email with %s', async (_what, fault) => {
      expect(await problemsOf('GET', `/v1/emails/${email.id}`, read({ ...email, ...fault }))).toEqual([expect.stringMatching(/must match pattern|must be equal to constant/)]);
    });

    it.each([
      ['a declared type that is not a bare media type', { attachments: [{ ...message.attachments[0], content_type: 'text/html; charset="><script>' }] }],
      ['an unbounded recipient', { to: ['a'.repeat(321)] }],
      ['a recipient with upper-case letters or control characters', { to: ['Bob@Example.com\u001b[2K'] }],
      ['a subject with control characters', { subject: 'Hi\u001b]52;c;aGk=\u0007' }],
    ])('catches a Message with %s', async (_what, fault) => {
      expect(await problemsOf('GET', `/v1/messages/${message.id}`, read({ ...message, ...fault }))).not.toEqual([]);
    });

    it('catches a usage record whose plan and allowance mode disagree', async () => {
      expect(await problemsOf('GET', '/v1/usage', read({ ...usage, allowance_mode: 'balance' }))).toEqual([expect.stringMatching(/must match exactly one schema in oneOf/)]);
    });

    it('catches a 400 invalid_request without details naming a field, and an empty message', async () => {
      const path = `/v1/emails/${email.id}`;
      expect(await problemsOf('GET', path, error(400, { code: 'invalid_request', details: [{ field: 'email_id', reason: 'must be an email id' }] }))).toEqual([]);
      expect(await problemsOf('GET', path, error(400, { code: 'invalid_request' }))).toEqual([expect.stringMatching(/must have required property 'details'/)]);
      expect(await problemsOf('GET', path, error(400, { code: 'invalid_request', details: [] }))).toEqual([expect.stringMatching(/must NOT have fewer than 1 items/)]);
      expect(await problemsOf('GET', path, error(400, { code: 'invalid_request', details: [{ reason: 'bad' }] }))).toEqual([expect.stringMatching(/must have required property 'field'/)]);
      expect(await problemsOf('GET', path, error(404, { code: 'resource_not_found', message: '' }))).toEqual([expect.stringMatching(/\/error\/message must NOT have fewer than 1 characters/)]);
    });

    it('catches a 422 whose reason is not one of the policy reasons', async () => {
      const refused = (reason: string) => ({ ...error(422, { code: 'policy_violation', details: [{ field: 'local_part', reason }] }), headers: { ...common } });
      expect(await problemsOf('POST', '/v1/emails', refused('reserved_name'))).toEqual([]);
      expect(await problemsOf('POST', '/v1/emails', refused('because'))).toEqual([expect.stringMatching(/must be equal to one of the allowed values/)]);
    });
  });

  it('answers an unknown route only with the error shape 404', async () => {
    const canned = usageResponse();
    expect(await problemsOf('DELETE', '/v1/usage', canned)).toContainEqual(
      'DELETE /v1/usage (no operation) 200: DELETE /v1/usage matches no operation, yet answered 200 instead of 404',
    );
  });

  it('is what every integration suite uses: none calls fetch, globalThis.fetch or node:http directly', () => {
    const offenders = [
      // This file answers from a stand-in server and quotes the bypasses below as test cases.
      ...sourcesIn(__dirname, (name) => name.endsWith('.test.ts') && name !== 'contract-validation.test.ts'),
      ...sourcesIn(join(__dirname, '..', 'support'), (name) => name.endsWith('.ts') && name !== 'contract.ts'),
    ].flatMap(({ name, text }) => directRequests(text).map((line) => `${name}:${line}`));
    expect(offenders).toEqual([]);
  });

  it('the guard sees each way around the checker', () => {
    const ways = [
      "await fetch(url)",
      "await globalThis.fetch(url)",
      "const f = globalThis['fetch'];",
      "import { request } from 'node:http';",
      "import { get as httpGet, createServer } from 'https';",
      "import * as http from 'node:http';",
      "import http from 'http';",
      "const http = require('node:http');",
    ];
    expect(ways.map((line) => directRequests(line).length)).toEqual(ways.map(() => 1));
    expect(directRequests("import { createServer, type Server } from 'node:http';\nawait contractFetch(url);\nawait client.fetch(url);")).toEqual([]);
    // A type-only import emits no code: it can make no request.
    expect(directRequests("import type { IncomingMessage } from 'node:http';\nimport type * as http from 'node:http';")).toEqual([]);
  });
});

function sourcesIn(dir: string, wanted: (name: string) => boolean): { name: string; text: string }[] {
  return readdirSync(dir)
    .filter(wanted)
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
}

/** The line numbers of a source's requests that bypass the checker. */
function directRequests(text: string): number[] {
  const clientNames = new Set(['request', 'get', 'Agent', 'ClientRequest']);
  return text.split('\n').flatMap((line, index) => {
    const fromHttp = /import\s+(?!type\s)(.+?)\s+from\s+['"](?:node:)?https?['"]/.exec(line);
    const importsClient =
      fromHttp !== null &&
      (!fromHttp[1]!.trim().startsWith('{') ||
        fromHttp[1]!
          .replace(/[{}]/g, '')
          .split(',')
          .map((name) => name.trim().split(/\s+as\s+/)[0]!)
          .some((name) => clientNames.has(name)));
    const bypasses =
      /(?<![\w.])fetch\(/.test(line) || /globalThis\s*(?:\.\s*fetch\b|\[\s*['"]fetch['"])/.test(line) || /require\(\s*['"](?:node:)?https?['"]\s*\)/.test(line) || importsClient;
    return bypasses ? [index + 1] : [];
  });
}
