import { once } from 'node:events';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, type Duplex, type Writable } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { gatewayResponse, gatewayResponseBody, gatewayResponseHeaders, type GatewayResponseType } from '../lib/gateway-responses';
import { newGatewayRequestId, requestIdFor } from '../lambdas/core/ids';
import { errorBody } from '../lambdas/api/error-response';
import { matchRoute, type RouteDefinition } from '../lambdas/api/routes';
import { preludeDelimiter } from './lambda-response-streaming';
import { servePublishedDocument } from './published-documents';

/** API Gateway's payload limit: larger bodies never reach a function. */
export const gatewayMaxBodyBytes = 10 * 1024 * 1024;
/** API Gateway's integration time-out. */
const integrationTimeoutMs = 29_000;

export type AuthorizerFunction = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
export type ProxyFunction = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
/** A response-streaming function, as `awslambda.streamifyResponse` hands it to the runtime. */
export type StreamingFunction = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<void>;

/** The function behind a route: buffered (the default) or streamed (integration transfer mode STREAM). */
export type RouteFunction = { mode: 'buffered'; fn: ProxyFunction } | { mode: 'streamed'; fn: StreamingFunction };

export interface ApiGatewayOptions {
  host: string;
  port: number;
  authorizer: AuthorizerFunction;
  /** The function behind each route id of the route table. */
  functions: ReadonlyMap<string, RouteFunction>;
  /** Answers what is not an API route (the console's pages, the local issuer); false to go on. */
  front?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

export interface RunningApiGateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The local stand-in for API Gateway REST: routes by the shared route table, builds the exact
 * REQUEST-authorizer and proxy events AWS sends, calls the same functions, and answers its own
 * failures (unknown route, oversized body, failed function) from the deployed stack's table of
 * gateway responses, exactly as the deployed gateway does.
 */
export async function startApiGateway(options: ApiGatewayOptions): Promise<RunningApiGateway> {
  const server = createServer((req, res) => {
    serve(req, res, options).catch(() => {
      if (!res.headersSent) gatewayError(res, newGatewayRequestId(), 'DEFAULT_5XX');
    });
  });
  server.on('clientError', answerClientError);
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://${options.host}:${port}`, port, close: () => closeServer(server) };
}

async function serve(req: IncomingMessage, res: ServerResponse, options: ApiGatewayOptions): Promise<void> {
  if (options.front && (await options.front(req, res))) return;
  const gatewayRequestId = newGatewayRequestId();
  // API Gateway REST names its own request id on every response it sends.
  res.setHeader('x-amzn-RequestId', gatewayRequestId);
  const url = new URL(req.url ?? '/', 'http://gateway.local');
  const method = req.method ?? 'GET';
  if (servePublishedDocument(req, res, url.pathname, requestIdFor(gatewayRequestId))) return;
  const match = matchRoute(method, url.pathname);
  if (!match) {
    req.resume();
    return gatewayError(res, gatewayRequestId, 'MISSING_AUTHENTICATION_TOKEN');
  }
  const body = await readBody(req, gatewayMaxBodyBytes);
  if (body === 'too-large') {
    return gatewayError(res, gatewayRequestId, 'REQUEST_TOO_LARGE');
  }

  const requestContext = buildRequestContext(req, match.route, url.pathname, gatewayRequestId);
  const request = { ...requestParts(req, url), resource: match.route.path, path: url.pathname, httpMethod: method };
  const pathParameters = Object.keys(match.pathParameters).length ? match.pathParameters : null;

  // Console routes carry an identity token, not an API key: their handler verifies it (in AWS a
  // Cognito authorizer checks it first too), so the key authorizer is not asked.
  let authorization: APIGatewayAuthorizerResult = consoleAuthorization;
  try {
    if (match.route.auth !== 'identity') authorization = await options.authorizer({
      type: 'REQUEST',
      methodArn: `arn:aws:execute-api:local:000000000000:local/v1/${method}${match.route.path}`,
      ...request,
      pathParameters,
      stageVariables: null,
      requestContext,
    } as APIGatewayRequestAuthorizerEvent);
  } catch {
    return gatewayError(res, gatewayRequestId, 'AUTHORIZER_FAILURE');
  }
  if (authorization.policyDocument.Statement.some((statement) => statement.Effect !== 'Allow')) {
    return gatewayError(res, gatewayRequestId, 'ACCESS_DENIED');
  }

  const target = options.functions.get(match.route.id);
  if (!target) return gatewayError(res, gatewayRequestId, 'INTEGRATION_FAILURE');
  const event: APIGatewayProxyEvent = {
    ...request,
    pathParameters,
    stageVariables: null,
    // The deployed API lists */* as binary media, so API Gateway hands every body over base64-encoded.
    body: body.length === 0 ? null : body.toString('base64'),
    isBase64Encoded: body.length > 0,
    requestContext: { ...requestContext, authorizer: authorizerContext(authorization) },
  };
  const context = lambdaContext(gatewayRequestId, match.route);
  if (target.mode === 'streamed') return relayStream(res, gatewayRequestId, (stream) => target.fn(event, stream, context));
  let result: APIGatewayProxyResult;
  try {
    result = await target.fn(event, context);
  } catch {
    return gatewayError(res, gatewayRequestId, 'INTEGRATION_FAILURE');
  }
  writeResult(res, result);
}

/**
 * Relays a streamed Lambda response as API Gateway does: reads the JSON prelude up to its eight
 * NUL bytes, answers with its status and headers, then passes the body on as it comes.
 */
async function relayStream(res: ServerResponse, gatewayRequestId: string, invoke: (stream: Writable) => Promise<void>) {
  const stream = new PassThrough();
  // A client that leaves mid-body ends the function's stream at once, and with it the file it reads.
  const abandoned = () => {
    if (!res.writableFinished) stream.destroy(new Error('The client closed the connection.'));
  };
  res.once('close', abandoned);
  const invocation = invoke(stream).catch((error: Error) => stream.destroy(error));
  let prelude: Buffer | undefined = Buffer.alloc(0);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (prelude === undefined) {
        if (!res.write(chunk)) await drained(res);
        continue;
      }
      prelude = Buffer.concat([prelude, chunk]);
      const end = prelude.indexOf(preludeDelimiter);
      if (end < 0) continue;
      const metadata = JSON.parse(prelude.subarray(0, end).toString('utf8')) as APIGatewayProxyResult;
      for (const [name, value] of Object.entries(metadata.headers ?? {})) res.setHeader(name, String(value));
      res.statusCode = metadata.statusCode;
      const rest = prelude.subarray(end + preludeDelimiter.length);
      prelude = undefined;
      if (rest.length > 0 && !res.write(rest)) await drained(res);
    }
    await invocation;
  } catch {
    if (!res.headersSent) return gatewayError(res, gatewayRequestId, 'INTEGRATION_FAILURE');
    res.destroy();
    return;
  }
  if (prelude !== undefined) return gatewayError(res, gatewayRequestId, 'INTEGRATION_FAILURE');
  res.end();
}

/** Resolves when the response can take more, or when it has closed (a closed response never drains). */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Headers and query string in both of API Gateway's shapes: last value, and all values. */
function requestParts(req: IncomingMessage, url: URL) {
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    (multiValueHeaders[name] ??= []).push(req.rawHeaders[i + 1]!);
  }
  const multiValueQueryStringParameters: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) (multiValueQueryStringParameters[name] ??= []).push(value);
  const hasQuery = Object.keys(multiValueQueryStringParameters).length > 0;
  return {
    headers: lastValues(multiValueHeaders),
    multiValueHeaders,
    queryStringParameters: hasQuery ? lastValues(multiValueQueryStringParameters) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQueryStringParameters : null,
  };
}

function lastValues(multi: Record<string, string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values[values.length - 1]!]));
}

function buildRequestContext(req: IncomingMessage, route: RouteDefinition, path: string, requestId: string) {
  const now = Date.now();
  return {
    accountId: '000000000000',
    apiId: 'local',
    stage: 'v1',
    requestId,
    extendedRequestId: requestId,
    requestTimeEpoch: now,
    requestTime: new Date(now).toUTCString(),
    resourceId: route.id,
    resourcePath: route.path,
    httpMethod: route.method,
    path: `/v1${path}`,
    protocol: `HTTP/${req.httpVersion}`,
    domainName: req.headers.host ?? 'localhost',
    authorizer: undefined,
    identity: {
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      userAgent: req.headers['user-agent'] ?? null,
      accessKey: null,
      accountId: null,
      apiKey: null,
      apiKeyId: null,
      caller: null,
      clientCert: null,
      cognitoAuthenticationProvider: null,
      cognitoAuthenticationType: null,
      cognitoIdentityId: null,
      cognitoIdentityPoolId: null,
      principalOrgId: null,
      user: null,
      userArn: null,
    },
  } as unknown as APIGatewayProxyEvent['requestContext'];
}

/** What a console route gets from the gateway: no key decision. */
const consoleAuthorization: APIGatewayAuthorizerResult = {
  principalId: 'identity',
  policyDocument: { Version: '2012-10-17', Statement: [] },
};

/** API Gateway REST hands the authorizer's context to the integration with every value as a string. */
function authorizerContext(result: APIGatewayAuthorizerResult): Record<string, string> {
  const context = Object.fromEntries(Object.entries(result.context ?? {}).map(([name, value]) => [name, String(value)]));
  return { ...context, principalId: result.principalId, integrationLatency: '0' };
}

function lambdaContext(requestId: string, route: RouteDefinition): Context {
  const deadline = Date.now() + integrationTimeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `tempmail-${route.id}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:tempmail-${route.id}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/tempmail-${route.id}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      return 'too-large';
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function writeResult(res: ServerResponse, result: APIGatewayProxyResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) res.setHeader(name, values.map(String));
  res.statusCode = result.statusCode;
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/**
 * A response the gateway itself gives, from the same table the deployed stack's gateway
 * responses are built from: the request id in the body, and, as in AWS, no `X-Request-Id` header.
 */
function gatewayError(res: ServerResponse, gatewayRequestId: string, type: GatewayResponseType) {
  const response = gatewayResponse(type);
  res.writeHead(response.status, gatewayResponseHeaders(response));
  res.end(JSON.stringify(gatewayResponseBody(response, requestIdFor(gatewayRequestId))));
}

/**
 * Requests Node's HTTP parser refuses before any handler runs (oversized headers, a malformed
 * request line, a request that never finished arriving): answered in the contract's error shape
 * with `X-Request-Id` and `Cache-Control`, instead of Node's bare status line.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const answer = clientErrorResponse(error.code, requestIdFor(newGatewayRequestId()));
  const head = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}`, ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`)];
  socket.end(`${head.join('\r\n')}\r\n\r\n${answer.body}`);
}

/**
 * The front's answer to a parser error, as openapi/openapi.yaml describes it (the local front's
 * own errors): 431 for oversized headers, 408 for a request that never finished arriving, 413 for
 * an oversized chunk extension, else 400 `invalid_request` with a detail on field `request`.
 */
export function clientErrorResponse(parserCode: string | undefined, requestId: string): { status: number; headers: Record<string, string>; body: string } {
  const [status, code, message] = clientErrorAnswer(parserCode);
  const details = status === 400 ? [{ field: 'request', reason: 'must be a valid HTTP/1.1 request' }] : undefined;
  const body = JSON.stringify(errorBody(code, message, requestId, details));
  return {
    status,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'private, no-store',
      'X-Request-Id': requestId,
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    },
    body,
  };
}

function clientErrorAnswer(parserCode: string | undefined): [number, string, string] {
  switch (parserCode) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'request_header_fields_too_large', 'The request headers are too large.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'request_timeout', 'The request did not arrive in time.'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'payload_too_large', 'The request body is too large.'];
    default:
      return [400, 'invalid_request', 'The request is not valid HTTP.'];
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}
