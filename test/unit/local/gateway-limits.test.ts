import { declaredGatewayResponse, gatewayResponse, gatewayResponseBody, type GatewayResponseType } from '../../../lib/gateway-responses';
import { InvocationRejected, startApiGateway, type GatewayMethod, type RouteFunction } from '../../../local/api-gateway';

/**
 * How the local gateway answers an integration that failed or outlived its time-out, as API
 * Gateway REST does: with the API's declared gateway response where it has one (the stack's, in
 * the contract's error shape), else with API Gateway's own status and `{"message": ...}`.
 */

const declared = (...types: GatewayResponseType[]) => new Map(types.map((type) => [type, declaredGatewayResponse(gatewayResponse(type))]));

const threw: RouteFunction = {
  mode: 'buffered',
  fn: async () => {
    throw new Error('Response payload size exceeded maximum allowed payload size (6291556 bytes).');
  },
};
const refused: RouteFunction = {
  mode: 'buffered',
  fn: async () => {
    throw new InvocationRejected('RequestEntityTooLargeException', 'Request must be smaller than 6291456 bytes for the InvokeFunction operation');
  },
};
const threwStreamed: RouteFunction = {
  mode: 'streamed',
  fn: async () => {
    throw new Error('Unhandled');
  },
};
/** A function that never answers: the gateway's time-out is met for certain. */
const neverAnswers: RouteFunction = { mode: 'buffered', fn: () => new Promise(() => undefined) };

async function answerOf(target: RouteFunction, responses: ReturnType<typeof declared>, overrides: Partial<GatewayMethod> = {}) {
  const gateway = await startApiGateway({
    host: '127.0.0.1',
    port: 0,
    api: { stage: 'test', responses, binaryMediaTypes: [], methods: [{ id: 'm', method: 'GET', path: '/v1/x', authorization: { type: 'NONE' }, target, ...overrides }] },
  });
  try {
    const response = await fetch(`${gateway.url}/v1/x`);
    return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
  } finally {
    await gateway.close();
  }
}

const none = declared();

describe("API Gateway's own answers, for an API that declares no gateway responses", () => {
  it('answers a function that ran and failed 502, and an invocation Lambda refused 500, each "Internal server error"', async () => {
    expect(await answerOf(threw, none)).toMatchObject({ status: 502, body: { message: 'Internal server error' } });
    expect(await answerOf(threwStreamed, none)).toMatchObject({ status: 502, body: { message: 'Internal server error' } });
    expect(await answerOf(refused, none)).toMatchObject({ status: 500, body: { message: 'Internal server error' } });
  });

  it('answers an integration past its time-out 504 "Endpoint request timed out"', async () => {
    expect(await answerOf(neverAnswers, none, { integrationTimeoutMs: 50 })).toMatchObject({ status: 504, body: { message: 'Endpoint request timed out' } });
  });
});

describe("the stack's declared gateway responses", () => {
  const stack = declared('INTEGRATION_FAILURE', 'INTEGRATION_TIMEOUT', 'DEFAULT_4XX', 'DEFAULT_5XX');
  const expectRow = (answer: Awaited<ReturnType<typeof answerOf>>, type: GatewayResponseType) => {
    const row = gatewayResponse(type);
    expect(answer.status).toBe(row.status);
    expect(answer.headers.get('retry-after')).toBe(row.headers?.['Retry-After'] ?? null);
    expect(answer.body).toEqual(gatewayResponseBody(row, `req_${answer.headers.get('x-amzn-requestid')}`));
  };

  it('answers a failed or refused integration as its INTEGRATION_FAILURE response (500 internal_error)', async () => {
    expectRow(await answerOf(threw, stack), 'INTEGRATION_FAILURE');
    expectRow(await answerOf(refused, stack), 'INTEGRATION_FAILURE');
  });

  it('answers an integration past its time-out as its INTEGRATION_TIMEOUT response (503 with Retry-After)', async () => {
    expectRow(await answerOf(neverAnswers, stack, { integrationTimeoutMs: 50 }), 'INTEGRATION_TIMEOUT');
  });
});
