import { Readable } from 'node:stream';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { gatewayMaxBodyBytes, startApiGateway, type AuthorizerFunction, type RouteFunction } from '../../../local/api-gateway';
import { routeTableApi } from '../../../local/route-table-api';
import { gatewayResponse, gatewayResponseBody, gatewayResponseTable, type GatewayResponseType } from '../../../lib/gateway-responses';

const allow: AuthorizerFunction = async (): Promise<APIGatewayAuthorizerResult> => ({
  principalId: 'acc_x',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }] },
  context: {},
});
const deny: AuthorizerFunction = async () => ({
  principalId: 'acc_x',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: '*' }] },
});
const crashed: RouteFunction = {
  mode: 'buffered',
  fn: async () => {
    throw new Error('crashed');
  },
};
const crashedStream: RouteFunction = {
  mode: 'streamed',
  fn: async () => {
    throw new Error('crashed');
  },
};

/** Starts the local front with one route's function and authorizer, sends one request, and answers. */
async function answerOf(
  setup: { authorizer?: AuthorizerFunction; functions?: [string, RouteFunction][] },
  path: string,
  init: RequestInit = {},
): Promise<Response & { text: string }> {
  const gateway = await startApiGateway({
    host: '127.0.0.1',
    port: 0,
    api: routeTableApi(setup.authorizer ?? allow, new Map(setup.functions ?? [])),
  });
  try {
    const response = await fetch(`${gateway.url}${path}`, init);
    return Object.assign(response, { text: await response.text() });
  } finally {
    await gateway.close();
  }
}

/** The answer is exactly the table's row, as the deployed gateway sends it. */
function expectGatewayResponse(response: Response & { text: string }, type: GatewayResponseType) {
  const row = gatewayResponse(type);
  expect(response.status).toBe(row.status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('cache-control')).toBe('private, no-store');
  expect(response.headers.get('retry-after')).toBe(row.headers?.['Retry-After'] ?? null);
  // A gateway response cannot put a per-request value in a header: no X-Request-Id, as in AWS.
  expect(response.headers.get('x-request-id')).toBeNull();
  const gatewayId = response.headers.get('x-amzn-requestid');
  expect(gatewayId).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(response.text)).toEqual(gatewayResponseBody(row, `req_${gatewayId}`));
}

describe('the local front answers its own failures from the deployed gateway response table', () => {
  it('answers an unknown route as MISSING_AUTHENTICATION_TOKEN', async () => {
    expectGatewayResponse(await answerOf({}, '/v1/nothing-here'), 'MISSING_AUTHENTICATION_TOKEN');
    expectGatewayResponse(await answerOf({}, '/v1/domains', { method: 'DELETE' }), 'MISSING_AUTHENTICATION_TOKEN');
  });

  it('answers a body over 10 MB as REQUEST_TOO_LARGE, before the authorizer', async () => {
    let authorized = false;
    const body = Readable.from([Buffer.alloc(gatewayMaxBodyBytes + 1, 'x')]);
    const response = await answerOf(
      { authorizer: async (event) => ((authorized = true), allow(event)) },
      '/v1/emails',
      { method: 'POST', body: Readable.toWeb(body) as ReadableStream, duplex: 'half' } as RequestInit,
    );
    expectGatewayResponse(response, 'REQUEST_TOO_LARGE');
    expect(authorized).toBe(false);
  });

  it('answers a failed authorizer as AUTHORIZER_FAILURE and a denial as ACCESS_DENIED', async () => {
    const failing: AuthorizerFunction = async () => {
      throw new Error('authorizer crashed');
    };
    expectGatewayResponse(await answerOf({ authorizer: failing }, '/v1/domains'), 'AUTHORIZER_FAILURE');
    expectGatewayResponse(await answerOf({ authorizer: deny }, '/v1/domains'), 'ACCESS_DENIED');
  });

  it('answers a crashed function, buffered or streamed, as INTEGRATION_FAILURE', async () => {
    expectGatewayResponse(await answerOf({ functions: [['listDomains', crashed]] }, '/v1/domains'), 'INTEGRATION_FAILURE');
    const source = '/v1/messages/msg_AAAAAAAAAAAAAAAAAAAAAA/source';
    expectGatewayResponse(await answerOf({ functions: [['getMessageSource', crashedStream]] }, source), 'INTEGRATION_FAILURE');
  });
});

describe('the gateway response table', () => {
  it('has one row per response type, each a contract error with Retry-After where the contract asks, and a 429 naming its limit', () => {
    const types = gatewayResponseTable.map((row) => row.type);
    expect(new Set(types).size).toBe(types.length);
    for (const row of gatewayResponseTable) {
      expect(row.code).toMatch(/^[a-z][a-z0-9_]{2,63}$/);
      expect(row.status).toBeGreaterThanOrEqual(400);
      if (row.status === 429 || row.status === 503) expect(Number(row.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
      if (row.status === 429) expect(gatewayResponseBody(row, 'req_x').error.details).toEqual([{ reason: 'gateway_throttle' }]);
      expect(Object.keys(row.headers ?? {}).map((name) => name.toLowerCase())).not.toContain('x-request-id');
    }
  });
});
