import { connect } from 'node:net';
import { once } from 'node:events';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { clientErrorResponse, startApiGateway, type RunningApiGateway } from '../../../local/api-gateway';
import { routeTableApi } from '../../../local/route-table-api';
import { contract, contractProblems } from '../../support/contract';

const requestIdPattern = /^req_[A-Za-z0-9_-]{16,80}$/;

let gateway: RunningApiGateway;
let authorizerCalls = 0;

beforeAll(async () => {
  gateway = await startApiGateway({
    host: '127.0.0.1',
    port: 0,
    api: routeTableApi(async (): Promise<APIGatewayAuthorizerResult> => {
      authorizerCalls++;
      return { principalId: 'acc_x', policyDocument: { Version: '2012-10-17', Statement: [] } };
    }, new Map()),
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

function expectContractError(answer: Awaited<ReturnType<typeof rawExchange>>, status: number, code: string, details?: object[]) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/json');
  expect(answer.headers.get('cache-control')).toBe('private, no-store');
  const requestId = answer.headers.get('x-request-id');
  expect(requestId).toMatch(requestIdPattern);
  expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.body));
  expect(JSON.parse(answer.body)).toEqual({ error: { code, message: expect.any(String), request_id: requestId, ...(details ? { details } : {}) } });
}

/** Every operation of the document, with a path that matches it. */
const operationPaths = contract().operations.map(({ method, template }) => ({ method, path: template.replace(/\{[^}]+\}/g, (name) => `${name.slice(1, 4)}_0123456789abcdef`) }));

/** What the document says of an answer the front gave to `method path`. */
function problemsAt(method: string, path: string, answer: { status: number; headers: Iterable<[string, string]> | Record<string, string>; body: string }) {
  const headers = new Headers(answer.headers instanceof Map ? [...answer.headers] : (answer.headers as Record<string, string>));
  return contractProblems(method, new URL(`http://front.local${path}`), answer.status, headers, answer.body);
}

describe("errors Node's HTTP server makes itself, answered by the local front in the contract's shape", () => {
  it('answers headers larger than the parser accepts with 431', async () => {
    const answer = await rawExchange(`GET /v1/domains HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectContractError(answer, 431, 'request_header_fields_too_large');
  });

  it('answers 431 on every operation as the document describes it', async () => {
    for (const { method, path } of operationPaths) {
      const answer = await rawExchange(`${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(problemsAt(method, path, answer)).toEqual([]);
    }
  });

  it('answers a request that never finished arriving with 408, as the document describes it for every operation', () => {
    for (const { method, path } of operationPaths) {
      const answer = clientErrorResponse('ERR_HTTP_REQUEST_TIMEOUT', 'req_0123456789abcdef0123');
      expect(answer.status).toBe(408);
      expect(problemsAt(method, path, answer)).toEqual([]);
    }
  });

  it('answers a malformed request line with 400 invalid_request', async () => {
    expectContractError(await rawExchange('THIS IS NOT HTTP\r\n\r\n'), 400, 'invalid_request', [{ field: 'request', reason: 'must be a valid HTTP/1.1 request' }]);
  });

  it('answers a malformed header with 400 invalid_request', async () => {
    const answer = await rawExchange('GET /v1/domains HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expectContractError(answer, 400, 'invalid_request', [{ field: 'request', reason: 'must be a valid HTTP/1.1 request' }]);
  });

  it('gives each refused request its own request id, and never reaches the authorizer', async () => {
    const first = await rawExchange('NOT HTTP\r\n\r\n');
    const second = await rawExchange('NOT HTTP\r\n\r\n');
    expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
    expect(authorizerCalls).toBe(0);
  });
});
