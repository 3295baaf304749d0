import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, type Writable } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { newGatewayRequestId, requestIdFor } from '../lambdas/core/ids';
import { errorBody } from '../lambdas/api/error-response';
import { matchRoute, type RouteDefinition } from '../lambdas/api/routes';
import { preludeDelimiter } from './lambda-response-streaming';

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
 * failures (unknown route, oversized body, failed function) in the contract's error shape, as
 * the deployed gateway responses do.
 */
export async function startApiGateway(options: ApiGatewayOptions): Promise<RunningApiGateway> {
  const server = createServer((req, res) => {
    serve(req, res, options).catch(() => {
      if (!res.headersSent) gatewayError(res, newGatewayRequestId(), 500, 'internal_error', 'Internal error.');
    });
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://${options.host}:${port}`, port, close: () => closeServer(server) };
}

async function serve(req: IncomingMessage, res: ServerResponse, options: ApiGatewayOptions): Promise<void> {
  if (options.front && (await options.front(req, res))) return;
  const gatewayRequestId = newGatewayRequestId();
  const url = new URL(req.url ?? '/', 'http://gateway.local');
  const method = req.method ?? 'GET';
  const match = matchRoute(method, url.pathname);
  if (!match) {
    req.resume();
    return gatewayError(res, gatewayRequestId, 404, 'resource_not_found', 'No such route.');
  }
  const body = await readBody(req, gatewayMaxBodyBytes);
  if (body === 'too-large') {
    return gatewayError(res, gatewayRequestId, 413, 'payload_too_large', 'The request body is too large.');
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
    return gatewayError(res, gatewayRequestId, 500, 'internal_error', 'The authorizer failed.');
  }
  if (authorization.policyDocument.Statement.some((statement) => statement.Effect !== 'Allow')) {
    return gatewayError(res, gatewayRequestId, 403, 'forbidden', 'Access denied.');
  }

  const target = options.functions.get(match.route.id);
  if (!target) return gatewayError(res, gatewayRequestId, 500, 'internal_error', 'No function for this route.');
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
    return gatewayError(res, gatewayRequestId, 500, 'internal_error', 'The function failed.');
  }
  writeResult(res, result);
}

/**
 * Relays a streamed Lambda response as API Gateway does: reads the JSON prelude up to its eight
 * NUL bytes, answers with its status and headers, then passes the body on as it comes.
 */
async function relayStream(res: ServerResponse, gatewayRequestId: string, invoke: (stream: Writable) => Promise<void>) {
  const stream = new PassThrough();
  const invocation = invoke(stream).catch((error: Error) => stream.destroy(error));
  let prelude: Buffer | undefined = Buffer.alloc(0);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (prelude === undefined) {
        if (!res.write(chunk)) await once(res, 'drain');
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
      if (rest.length > 0 && !res.write(rest)) await once(res, 'drain');
    }
    await invocation;
  } catch {
    if (!res.headersSent) return gatewayError(res, gatewayRequestId, 500, 'internal_error', 'The function failed.');
    res.destroy();
    return;
  }
  if (prelude !== undefined) return gatewayError(res, gatewayRequestId, 500, 'internal_error', 'The function failed.');
  res.end();
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

/** A response the gateway itself gives, rewritten into the contract's shape as the stack does. */
function gatewayError(res: ServerResponse, gatewayRequestId: string, status: number, code: string, message: string) {
  const requestId = requestIdFor(gatewayRequestId);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Cache-Control': 'private, no-store',
    'X-Request-Id': requestId,
  });
  res.end(JSON.stringify(errorBody(code, message, requestId)));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}
