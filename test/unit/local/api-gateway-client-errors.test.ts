import { connect } from 'node:net';
import { once } from 'node:events';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { startApiGateway, type RunningApiGateway } from '../../../local/api-gateway';

const requestIdPattern = /^req_[A-Za-z0-9_-]{16,80}$/;

let gateway: RunningApiGateway;
let authorizerCalls = 0;

beforeAll(async () => {
  gateway = await startApiGateway({
    host: '127.0.0.1',
    port: 0,
    authorizer: async (): Promise<APIGatewayAuthorizerResult> => {
      authorizerCalls++;
      return { principalId: 'acc_x', policyDocument: { Version: '2012-10-17', Statement: [] } };
    },
    functions: new Map(),
  });
});
afterAll(() => gateway.close());

/** Writes raw bytes to the front and reads everything it answers until it closes the connection. */
async function rawExchange(request: string | Buffer): Promise<{ status: number; headers: Map<string, string>; body: string }> {
  const socket = connect(gateway.port, '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  const ended = once(socket, 'close');
  socket.write(request);
  await ended;
  const text = Buffer.concat(chunks).toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
  const headers = new Map(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) };
}

function expectContractError(answer: Awaited<ReturnType<typeof rawExchange>>, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/json');
  expect(answer.headers.get('cache-control')).toBe('private, no-store');
  const requestId = answer.headers.get('x-request-id');
  expect(requestId).toMatch(requestIdPattern);
  expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.body));
  expect(JSON.parse(answer.body)).toEqual({ error: { code, message: expect.any(String), request_id: requestId } });
}

describe("errors Node's HTTP server makes itself, answered by the local front in the contract's shape", () => {
  it('answers headers larger than the parser accepts with 431', async () => {
    const answer = await rawExchange(`GET /v1/domains HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectContractError(answer, 431, 'request_header_fields_too_large');
  });

  it('answers a malformed request line with 400 invalid_request', async () => {
    expectContractError(await rawExchange('THIS IS NOT HTTP\r\n\r\n'), 400, 'invalid_request');
  });

  it('answers a malformed header with 400 invalid_request', async () => {
    expectContractError(await rawExchange('GET /v1/domains HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'), 400, 'invalid_request');
  });

  it('gives each refused request its own request id, and never reaches the authorizer', async () => {
    const first = await rawExchange('NOT HTTP\r\n\r\n');
    const second = await rawExchange('NOT HTTP\r\n\r\n');
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
    expect(authorizerCalls).toBe(0);
  });
});
