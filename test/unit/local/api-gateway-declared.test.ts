import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import {
  startApiGateway,
  type AuthorizerFunction,
  type CognitoAuthorizer,
  type GatewayApi,
  type GatewayMethod,
  type RequestAuthorizer,
  type RouteFunction,
} from '../../../local/api-gateway';
import { declaredGatewayResponse, gatewayResponse, gatewayResponseBody, type GatewayResponseType } from '../../../lib/gateway-responses';
import { TestClock } from '../../support/test-clock';

/**
 * The local gateway serving an API as it is declared (what `npm run start:stack` reads from the
 * template): its router, its authorizers' identity sources, caching and policies, a Cognito user
 * pool's token check, the stage's throttle, its gateway responses and binary media types.
 */

/** What a function saw of its event, answered back as JSON. */
const echo = (seen: APIGatewayProxyEvent[] = []): RouteFunction => ({
  mode: 'buffered',
  fn: async (event) => {
    seen.push(event);
    return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ resource: event.resource, pathParameters: event.pathParameters }) };
  },
});

const declared = (...types: GatewayResponseType[]) => new Map(types.map((type) => [type, declaredGatewayResponse(gatewayResponse(type))]));
const allResponses = declared('MISSING_AUTHENTICATION_TOKEN', 'UNAUTHORIZED', 'ACCESS_DENIED', 'THROTTLED', 'AUTHORIZER_FAILURE', 'INTEGRATION_FAILURE', 'DEFAULT_4XX', 'DEFAULT_5XX');

/** A Lambda authorizer that counts its calls and allows exactly the method it was asked about. */
function countingAuthorizer(): AuthorizerFunction & { calls: number } {
  const authorizer = Object.assign(
    async (event: { methodArn: string }): Promise<APIGatewayAuthorizerResult> => {
      authorizer.calls++;
      return {
        principalId: 'acc_x',
        policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }] },
        context: { account_id: 'acc_x' },
      };
    },
    { calls: 0 },
  );
  return authorizer as AuthorizerFunction & { calls: number };
}

async function withGateway(api: Partial<GatewayApi> & { methods: GatewayMethod[] }, clock: TestClock, run: (url: string) => Promise<void>) {
  const gateway = await startApiGateway({
    host: '127.0.0.1',
    port: 0,
    api: { stage: 'test', responses: allResponses, binaryMediaTypes: ['*/*'], ...api },
    clock,
  });
  try {
    await run(gateway.url);
  } finally {
    await gateway.close();
  }
}

/** The answer is the declared gateway response of this type, with the gateway's request id in its body; the body is returned. */
async function expectDeclared(response: Response, type: GatewayResponseType): Promise<unknown> {
  const row = gatewayResponse(type);
  expect(response.status).toBe(row.status);
  expect(response.headers.get('cache-control')).toBe('private, no-store');
  expect(response.headers.get('retry-after')).toBe(row.headers?.['Retry-After'] ?? null);
  const body: unknown = await response.json();
  expect(body).toEqual(gatewayResponseBody(row, `req_${response.headers.get('x-amzn-requestid')}`));
  return body;
}

const method = (path: string, overrides: Partial<GatewayMethod> = {}): GatewayMethod => ({
  id: path,
  method: 'GET',
  path,
  authorization: { type: 'NONE' },
  target: echo(),
  ...overrides,
});

describe('the router', () => {
  it('prefers a literal resource to a {param} one, and answers a resource without the method as a path that is not there', async () => {
    const methods = [method('/items/{item_id}'), method('/items/special'), method('/items', { method: 'POST' })];
    await withGateway({ methods }, new TestClock(), async (url) => {
      expect(await (await fetch(`${url}/items/special`)).json()).toEqual({ resource: '/items/special', pathParameters: null });
      expect(await (await fetch(`${url}/items/it%20em`)).json()).toEqual({ resource: '/items/{item_id}', pathParameters: { item_id: 'it em' } });
      await expectDeclared(await fetch(`${url}/items`), 'MISSING_AUTHENTICATION_TOKEN');
      await expectDeclared(await fetch(`${url}/nothing`), 'MISSING_AUTHENTICATION_TOKEN');
    });
  });

  it("falls back to DEFAULT_4XX for a type the API does not declare, then to API Gateway's own answer", async () => {
    await withGateway({ methods: [method('/items')], responses: declared('DEFAULT_4XX') }, new TestClock(), async (url) => {
      const fallback = await fetch(`${url}/nothing`);
      expect(fallback.status).toBe(403);
      expect(((await fallback.json()) as { error: { code: string } }).error.code).toBe(gatewayResponse('DEFAULT_4XX').code);
    });
    await withGateway({ methods: [method('/items')], responses: new Map() }, new TestClock(), async (url) => {
      const own = await fetch(`${url}/nothing`);
      expect(own.status).toBe(403);
      expect(await own.json()).toEqual({ message: 'Missing Authentication Token' });
    });
  });
});

describe('a REQUEST authorizer as declared', () => {
  const keyed = (authorizer: RequestAuthorizer, path = '/items') => method(path, { authorization: { type: 'CUSTOM', authorizer } });

  it('answers 401 without calling the authorizer when an identity source is missing or empty', async () => {
    const invoke = countingAuthorizer();
    const authorizer = { identitySources: ['method.request.header.X-Key', 'method.request.querystring.tenant'], resultTtlSeconds: 0, invoke };
    await withGateway({ methods: [keyed(authorizer)] }, new TestClock(), async (url) => {
      await expectDeclared(await fetch(`${url}/items?tenant=t1`), 'UNAUTHORIZED');
      await expectDeclared(await fetch(`${url}/items?tenant=`, { headers: { 'X-Key': 'k1' } }), 'UNAUTHORIZED');
      expect(invoke.calls).toBe(0);
      expect((await fetch(`${url}/items?tenant=t1`, { headers: { 'x-key': 'k1' } })).status).toBe(200);
      expect(invoke.calls).toBe(1);
    });
  });

  it('reuses a result for the same identity within its TTL, and evaluates the reused policy against each method', async () => {
    const invoke = countingAuthorizer();
    const authorizer = { identitySources: ['method.request.header.Authorization'], resultTtlSeconds: 60, invoke };
    const clock = new TestClock();
    await withGateway({ methods: [keyed(authorizer), keyed(authorizer, '/other')] }, clock, async (url) => {
      const as = (key: string, path = '/items') => fetch(`${url}${path}`, { headers: { Authorization: key } });
      expect((await as('key-1')).status).toBe(200);
      expect((await as('key-1')).status).toBe(200);
      expect(invoke.calls).toBe(1);
      expect((await as('key-2')).status).toBe(200);
      expect(invoke.calls).toBe(2);
      // The policy kept for key-1 allows /items only: the gateway denies /other without asking again.
      await expectDeclared(await as('key-1', '/other'), 'ACCESS_DENIED');
      expect(invoke.calls).toBe(2);
      clock.advance(60_001);
      expect((await as('key-1')).status).toBe(200);
      expect(invoke.calls).toBe(3);
    });
  });

  it("calls it on every request when its TTL is 0, and answers an authorizer's `Unauthorized` with 401", async () => {
    const invoke = countingAuthorizer();
    const refusing: AuthorizerFunction = async () => {
      throw new Error('Unauthorized');
    };
    const methods = [keyed({ identitySources: ['context.requestId'], resultTtlSeconds: 0, invoke }), keyed({ identitySources: [], resultTtlSeconds: 0, invoke: refusing }, '/refused')];
    await withGateway({ methods }, new TestClock(), async (url) => {
      for (let i = 0; i < 3; i++) expect((await fetch(`${url}/items`)).status).toBe(200);
      expect(invoke.calls).toBe(3);
      await expectDeclared(await fetch(`${url}/refused`), 'UNAUTHORIZED');
    });
  });
});

describe("a Cognito user pool's authorizer", () => {
  it('checks the token before the function runs: 401 for none or a refused one, the claims handed on for an accepted one', async () => {
    const checked: string[] = [];
    const authorizer: CognitoAuthorizer = {
      identitySource: 'method.request.header.Authorization',
      resultTtlSeconds: 0,
      verify: async (token) => (checked.push(token), token === 'good-token' ? { sub: 'person-1', email: 'p@example.test' } : undefined),
    };
    const seen: APIGatewayProxyEvent[] = [];
    const methods = [method('/console', { authorization: { type: 'COGNITO_USER_POOLS', authorizer }, target: echo(seen) })];
    await withGateway({ methods }, new TestClock(), async (url) => {
      await expectDeclared(await fetch(`${url}/console`), 'UNAUTHORIZED');
      expect(checked).toEqual([]);
      await expectDeclared(await fetch(`${url}/console`, { headers: { Authorization: 'Bearer forged-token' } }), 'UNAUTHORIZED');
      expect(seen).toEqual([]);
      expect((await fetch(`${url}/console`, { headers: { Authorization: 'Bearer good-token' } })).status).toBe(200);
      expect(checked).toEqual(['forged-token', 'good-token']);
      expect(seen[0]!.requestContext.authorizer).toEqual({ claims: { sub: 'person-1', email: 'p@example.test' } });
      expect(seen[0]!.headers.Authorization).toBe('Bearer good-token');
    });
  });
});

describe("the stage's throttle", () => {
  it('answers THROTTLED once a method has spent its burst, refills at its rate, and leaves other methods alone', async () => {
    const seen: APIGatewayProxyEvent[] = [];
    const clock = new TestClock();
    const methods = [method('/slow', { throttle: { rate: 1, burst: 2 }, target: echo(seen) }), method('/free')];
    await withGateway({ methods }, clock, async (url) => {
      expect((await fetch(`${url}/slow`)).status).toBe(200);
      expect((await fetch(`${url}/slow`)).status).toBe(200);
      // Like every 429 of the service, the gateway's own names the limit it met.
      expect(await expectDeclared(await fetch(`${url}/slow`), 'THROTTLED')).toMatchObject({
        error: { code: 'rate_limit_exceeded', details: [{ reason: 'gateway_throttle' }] },
      });
      expect(seen).toHaveLength(2);
      expect((await fetch(`${url}/free`)).status).toBe(200);
      clock.advance(1000);
      expect((await fetch(`${url}/slow`)).status).toBe(200);
      await expectDeclared(await fetch(`${url}/slow`), 'THROTTLED');
    });
  });
});

describe('binary media types', () => {
  it('hands a body of a binary type over base64-encoded and any other as text, and decodes a base64 answer for a client that accepts a binary type first', async () => {
    const seen: APIGatewayProxyEvent[] = [];
    const binary: RouteFunction = {
      mode: 'buffered',
      fn: async (event) => (seen.push(event), { statusCode: 200, headers: { 'Content-Type': 'image/png' }, body: Buffer.from('png bytes').toString('base64'), isBase64Encoded: true }),
    };
    await withGateway({ methods: [method('/files', { method: 'POST', target: binary })], binaryMediaTypes: ['image/png'] }, new TestClock(), async (url) => {
      const asText = await fetch(`${url}/files`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: '{"a":1}' });
      expect(await asText.text()).toBe(Buffer.from('png bytes').toString('base64'));
      const asBinary = await fetch(`${url}/files`, { method: 'POST', headers: { 'Content-Type': 'image/png', Accept: 'image/png, */*' }, body: 'raw' });
      expect(await asBinary.text()).toBe('png bytes');
      expect(seen.map((event) => [event.body, event.isBase64Encoded])).toEqual([
        ['{"a":1}', false],
        [Buffer.from('raw').toString('base64'), true],
      ]);
    });
  });
});

describe("the gateway's clock", () => {
  it("stamps the event's request time and counts the function's remaining time on the clock it is given, not the system's", async () => {
    const clock = new TestClock('2030-01-02T03:04:05.000Z');
    const seen: { epoch: number; time: string; remaining: number[] }[] = [];
    const timed: RouteFunction = {
      mode: 'buffered',
      fn: async (event, context) => {
        const remaining = [context.getRemainingTimeInMillis()];
        clock.advance(10_000);
        remaining.push(context.getRemainingTimeInMillis());
        seen.push({ epoch: event.requestContext.requestTimeEpoch, time: event.requestContext.requestTime ?? '', remaining });
        return { statusCode: 204, body: '' };
      },
    };
    await withGateway({ methods: [method('/timed', { target: timed, integrationTimeoutMs: 29_000 })] }, clock, async (url) => {
      expect((await fetch(`${url}/timed`)).status).toBe(204);
    });
    expect(seen).toEqual([{ epoch: Date.parse('2030-01-02T03:04:05.000Z'), time: 'Wed, 02 Jan 2030 03:04:05 GMT', remaining: [29_000, 19_000] }]);
  });
});
