import { once } from 'node:events';
import { createServer, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, type Duplex, type Writable } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { DeclaredGatewayResponse, GatewayResponseType } from '../lib/gateway-responses';
import { systemClock } from '../lambdas/adapters/system-clock';
import type { Clock } from '../lambdas/core/ports/clock';
import { newGatewayRequestId, requestIdFor } from '../lambdas/core/ids';
import { errorBody } from '../lambdas/api/error-response';
import { matchRoute } from '../lambdas/api/routes';
import { defaultIntegrationTimeoutMs, gatewayMaxBodyBytes, integrationFailure, integrationTimedOut, withinIntegrationTimeout, type IntegrationFailure } from './gateway-limits';
import { policyAllows, type PolicyDocument } from './iam';
import { preludeDelimiter } from './lambda-response-streaming';
import { servePublishedDocument } from './published-documents';

export { gatewayMaxBodyBytes, InvocationRejected } from './gateway-limits';
/** The account and Region the local gateway's method ARNs name. */
const gatewayAccount = { account: '000000000000', region: 'us-east-1', apiId: 'local' };

export type AuthorizerFunction = (event: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;
export type ProxyFunction = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
/** A response-streaming function, as `awslambda.streamifyResponse` hands it to the runtime. */
export type StreamingFunction = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<void>;

/** The function behind a route: buffered (the default) or streamed (integration transfer mode STREAM). */
export type RouteFunction = { mode: 'buffered'; fn: ProxyFunction } | { mode: 'streamed'; fn: StreamingFunction };

/** A Lambda REQUEST authorizer as declared: where its identity comes from, how long a result is reused. */
export interface RequestAuthorizer {
  /** API Gateway's mapping expressions: `method.request.header.Name`, `method.request.querystring.name`, `context.requestId`, `stageVariables.name`. */
  identitySources: readonly string[];
  /** A result is reused for the same identity-source values this long; 0: the authorizer runs on every request. */
  resultTtlSeconds: number;
  invoke: AuthorizerFunction;
}

/** A Cognito user pool authorizer as declared, with the check of its pool's tokens. */
export interface CognitoAuthorizer {
  /** The header mapping expression the token is read from (`method.request.header.Authorization`). */
  identitySource: string;
  resultTtlSeconds: number;
  /** The token's claims when the user pool's authorizer accepts it, undefined when it refuses it. */
  verify(token: string): Promise<Record<string, string> | undefined>;
}

export type MethodAuthorization =
  | { type: 'NONE' }
  | { type: 'CUSTOM'; authorizer: RequestAuthorizer }
  | { type: 'COGNITO_USER_POOLS'; authorizer: CognitoAuthorizer };

/** One method of the API: where it is, who may call it, how often, and the function behind it. */
export interface GatewayMethod {
  /** Names the method in its events (`requestContext.resourceId`). */
  id: string;
  /** The HTTP method, or `ANY`. */
  method: string;
  /** The resource path, with `{param}` placeholders. */
  path: string;
  authorization: MethodAuthorization;
  /** The stage's throttle for this method: a bucket of `burst` requests refilled at `rate` a second. Absent: not throttled. */
  throttle?: { rate: number; burst: number };
  /** Absent: the gateway answers INTEGRATION_FAILURE, as for a function it cannot invoke. */
  target?: RouteFunction;
  /** How long the gateway waits for a buffered integration's answer (the integration's `TimeoutInMillis`); absent: 29 s. */
  integrationTimeoutMs?: number;
}

/** The API the gateway serves, as its declaration says (the route table for `npm start`, the template for `npm run start:stack`). */
export interface GatewayApi {
  stage: string;
  methods: readonly GatewayMethod[];
  /** The declared gateway responses by type; a type not declared falls back to DEFAULT_4XX or DEFAULT_5XX, then to API Gateway's own. */
  responses: ReadonlyMap<string, DeclaredGatewayResponse>;
  /** Media types handed over base64-encoded, as API Gateway spells them (every type, a type family, or one type). */
  binaryMediaTypes: readonly string[];
}

export interface ApiGatewayOptions {
  host: string;
  port: number;
  api: GatewayApi;
  /** The gateway's clock: its events' request time, its functions' remaining time, its throttle buckets and its authorizers' result caches. Absent: the system clock. */
  clock?: Clock;
  /** Answers what is not an API route (the console's pages, the local issuer); false to go on. */
  front?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

export interface RunningApiGateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The local stand-in for API Gateway REST, serving the API it is given: routes as its router does,
 * throttles each method as its stage says, runs each method's authorizer as declared (identity
 * sources, result caching, the returned policy; a Cognito user pool's token check), builds the
 * exact events AWS sends, calls the functions, and answers its own failures from the API's
 * gateway responses, exactly as the deployed gateway does.
 */
export async function startApiGateway(options: ApiGatewayOptions): Promise<RunningApiGateway> {
  const gateway = new GatewayState(options.clock ?? systemClock);
  const server = createServer((req, res) => {
    serve(req, res, options, gateway).catch(() => {
      if (!res.headersSent) gatewayError(req, res, options.api, newGatewayRequestId(), 'DEFAULT_5XX');
    });
  });
  server.on('clientError', answerClientError);
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://${options.host}:${port}`, port, close: () => closeServer(server) };
}

/** What the gateway keeps between requests: each method's throttle bucket, each authorizer's cached results. */
class GatewayState {
  private readonly buckets = new Map<GatewayMethod, { tokens: number; at: number }>();
  private readonly caches = new Map<object, Map<string, { value: unknown; expiresAt: number }>>();

  /** The gateway's time: what its events, its functions' remaining time, its buckets and caches read. */
  constructor(readonly clock: Clock) {}

  /** Takes a request from the method's bucket (a token bucket, as API Gateway throttles); false when it is empty. */
  admit(method: GatewayMethod): boolean {
    if (!method.throttle) return true;
    const now = this.clock.now().getTime();
    const { rate, burst } = method.throttle;
    const bucket = this.buckets.get(method) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate);
    bucket.at = now;
    this.buckets.set(method, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** An authorizer's result for these identity-source values: reused within its TTL, else produced (and kept when defined). */
  async cached<T>(authorizer: { resultTtlSeconds: number }, identity: string[], produce: () => Promise<T>): Promise<T> {
    if (authorizer.resultTtlSeconds <= 0) return produce();
    const cache = this.caches.get(authorizer) ?? new Map<string, { value: unknown; expiresAt: number }>();
    this.caches.set(authorizer, cache);
    const key = JSON.stringify(identity);
    const hit = cache.get(key);
    if (hit && hit.expiresAt > this.clock.now().getTime()) return hit.value as T;
    const value = await produce();
    if (value !== undefined) cache.set(key, { value, expiresAt: this.clock.now().getTime() + authorizer.resultTtlSeconds * 1000 });
    return value;
  }
}

async function serve(req: IncomingMessage, res: ServerResponse, options: ApiGatewayOptions, gateway: GatewayState): Promise<void> {
  if (options.front && (await options.front(req, res))) return;
  const { api } = options;
  const gatewayRequestId = newGatewayRequestId();
  const answer = (type: GatewayResponseType, builtIn?: IntegrationFailure['builtIn']) => gatewayError(req, res, api, gatewayRequestId, type, builtIn);
  const failed = (failure: IntegrationFailure) => answer(failure.type, failure.builtIn);
  // API Gateway REST names its own request id on every response it sends.
  res.setHeader('x-amzn-RequestId', gatewayRequestId);
  const url = new URL(req.url ?? '/', 'http://gateway.local');
  const httpMethod = req.method ?? 'GET';
  if (servePublishedDocument(req, res, url.pathname, requestIdFor(gatewayRequestId))) return;
  const match = matchRoute(httpMethod, url.pathname, api.methods);
  if (!match) {
    req.resume();
    return answer('MISSING_AUTHENTICATION_TOKEN');
  }
  const method = match.route;
  if (!gateway.admit(method)) {
    req.resume();
    return answer('THROTTLED');
  }
  const body = await readBody(req, gatewayMaxBodyBytes);
  if (body === 'too-large') return answer('REQUEST_TOO_LARGE');

  const requestContext = buildRequestContext(req, api.stage, method, url.pathname, gatewayRequestId, gateway.clock.now());
  const request = { ...requestParts(req, url), resource: method.path, path: url.pathname, httpMethod };
  const pathParameters = Object.keys(match.pathParameters).length ? match.pathParameters : null;
  const authorization = await authorize(method.authorization, { ...request, pathParameters, stageVariables: null, requestContext }, api.stage, gateway);
  if ('refused' in authorization) return answer(authorization.refused);

  const target = method.target;
  if (!target) return answer('INTEGRATION_FAILURE');
  const binaryBody = body.length > 0 && isBinaryMediaType(api.binaryMediaTypes, req.headers['content-type']);
  const event: APIGatewayProxyEvent = {
    ...request,
    pathParameters,
    stageVariables: null,
    // A body of a binary media type is handed over base64-encoded, any other as text.
    body: body.length === 0 ? null : body.toString(binaryBody ? 'base64' : 'utf8'),
    isBase64Encoded: binaryBody,
    requestContext: { ...requestContext, authorizer: authorization.context },
  };
  const timeoutMs = method.integrationTimeoutMs ?? defaultIntegrationTimeoutMs;
  const context = lambdaContext(gatewayRequestId, method, timeoutMs, gateway.clock);
  if (target.mode === 'streamed') return relayStream(res, (stream) => target.fn(event, stream, context), (error) => failed(integrationFailure(error)));
  let result: APIGatewayProxyResult | typeof timedOut;
  try {
    result = await withinIntegrationTimeout(target.fn(event, context), timeoutMs, timedOut);
  } catch (error) {
    return failed(integrationFailure(error));
  }
  if (result === timedOut) return failed(integrationTimedOut);
  // A base64 body is decoded when the client's first accepted type is a binary media type.
  writeResult(res, result, isBinaryMediaType(api.binaryMediaTypes, req.headers.accept?.split(',')[0]));
}

const timedOut = Symbol('integration timed out');

type AuthorizerEvent = Omit<APIGatewayRequestAuthorizerEvent, 'type' | 'methodArn' | 'requestContext'> & { requestContext: APIGatewayProxyEvent['requestContext'] };
type Authorization = { refused: GatewayResponseType } | { context: APIGatewayProxyEvent['requestContext']['authorizer'] };

/**
 * A method's authorization, as API Gateway runs it: every identity source present (else 401 and
 * no authorizer call), the result reused within the authorizer's TTL for the same identity, and
 * a Lambda authorizer's policy evaluated against this request's method ARN (a reused policy may
 * not cover it: 403).
 */
async function authorize(authorization: MethodAuthorization, event: AuthorizerEvent, stage: string, gateway: GatewayState): Promise<Authorization> {
  if (authorization.type === 'NONE') return { context: undefined };
  const { authorizer } = authorization;
  const sources = authorization.type === 'CUSTOM' ? authorization.authorizer.identitySources : [authorization.authorizer.identitySource];
  const identity = sources.map((source) => identityValue(source, event));
  if (!identity.every((value): value is string => value !== undefined)) return { refused: 'UNAUTHORIZED' };
  try {
    if (authorization.type === 'COGNITO_USER_POOLS') {
      const token = identity[0]!.replace(/^Bearer\s+/i, '');
      const claims = await gateway.cached(authorizer, identity, () => authorization.authorizer.verify(token));
      return claims ? { context: { claims } } : { refused: 'UNAUTHORIZED' };
    }
    const methodArn = `arn:aws:execute-api:${gatewayAccount.region}:${gatewayAccount.account}:${gatewayAccount.apiId}/${stage}/${event.httpMethod}${event.path}`;
    const result = await gateway.cached(authorizer, identity, () => authorization.authorizer.invoke({ type: 'REQUEST', methodArn, ...event } as unknown as APIGatewayRequestAuthorizerEvent));
    if (!(await allows(result.policyDocument, methodArn))) return { refused: 'ACCESS_DENIED' };
    return { context: authorizerContext(result) };
  } catch (error) {
    // A Lambda authorizer that fails with exactly `Unauthorized` asks for the gateway's 401.
    return { refused: (error as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE' };
  }
}

/** Whether an authorizer's policy allows the method; a policy that allows exactly it needs no evaluator. */
function allows(policy: APIGatewayAuthorizerResult['policyDocument'], methodArn: string): Promise<boolean> | boolean {
  const statements = [policy.Statement].flat() as { Effect?: string; Action?: unknown; Resource?: unknown }[];
  if (statements.length > 0 && statements.every((statement) => statement.Effect === 'Allow' && statement.Action === 'execute-api:Invoke' && statement.Resource === methodArn)) return true;
  return policyAllows(policy as unknown as PolicyDocument, { action: 'execute-api:Invoke', resource: methodArn, accountId: gatewayAccount.account });
}

/** An identity source's value in a request, as API Gateway reads it; undefined when absent or empty. */
function identityValue(source: string, event: AuthorizerEvent): string | undefined {
  const [, kind, name = ''] = /^(method\.request\.header|method\.request\.querystring|context|stageVariables)\.(.+)$/.exec(source.trim()) ?? [];
  let value: unknown;
  if (kind === 'method.request.header') value = Object.entries(event.headers ?? {}).find(([header]) => header.toLowerCase() === name.toLowerCase())?.[1];
  else if (kind === 'method.request.querystring') value = event.queryStringParameters?.[name];
  else if (kind === 'context') value = name.split('.').reduce<unknown>((parent, key) => (parent as Record<string, unknown> | undefined)?.[key], event.requestContext);
  // stageVariables: the local stage has none, so an identity source there is always missing.
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Whether a media type is one of the API's binary media types (the all-types pattern covers a request that names none). */
function isBinaryMediaType(binaryMediaTypes: readonly string[], mediaType: string | undefined): boolean {
  const type = mediaType?.split(';')[0]!.trim().toLowerCase() ?? '';
  return binaryMediaTypes.some((declared) => {
    const pattern = declared.replace(/~1/g, '/').toLowerCase();
    if (pattern === '*/*') return true;
    return pattern.endsWith('/*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;
  });
}

/**
 * Relays a streamed Lambda response as API Gateway does: reads the JSON prelude up to its eight
 * NUL bytes, answers with its status and headers, then passes the body on as it comes.
 */
async function relayStream(res: ServerResponse, invoke: (stream: Writable) => Promise<void>, failed: (error: unknown) => void) {
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
  } catch (error) {
    if (!res.headersSent) return failed(error);
    res.destroy();
    return;
  }
  // A stream that ends without its prelude is not a proxy response: the function's failure.
  if (prelude !== undefined) return failed(new Error('no prelude'));
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

function buildRequestContext(req: IncomingMessage, stage: string, method: GatewayMethod, path: string, requestId: string, received: Date) {
  const now = received.getTime();
  return {
    accountId: gatewayAccount.account,
    apiId: gatewayAccount.apiId,
    stage,
    requestId,
    extendedRequestId: requestId,
    requestTimeEpoch: now,
    requestTime: new Date(now).toUTCString(),
    resourceId: method.id,
    resourcePath: method.path,
    httpMethod: req.method ?? 'GET',
    path: `/${stage}${path}`,
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

/** API Gateway REST hands the authorizer's context to the integration with every value as a string. */
function authorizerContext(result: APIGatewayAuthorizerResult): Record<string, string> {
  const context = Object.fromEntries(Object.entries(result.context ?? {}).map(([name, value]) => [name, String(value)]));
  return { ...context, principalId: result.principalId, integrationLatency: '0' };
}

/** The Lambda context of an invocation; its remaining time is read on the gateway's clock, as the request's time is. */
function lambdaContext(requestId: string, route: GatewayMethod, timeoutMs: number, clock: Clock): Context {
  const deadline = clock.now().getTime() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `tempmail-${route.id}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:tempmail-${route.id}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/tempmail-${route.id}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - clock.now().getTime()),
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

function writeResult(res: ServerResponse, result: APIGatewayProxyResult, decodeBinary: boolean): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) res.setHeader(name, values.map(String));
  res.statusCode = result.statusCode;
  res.end(result.isBase64Encoded && decodeBinary ? Buffer.from(result.body, 'base64') : result.body);
}

/**
 * API Gateway's own status and message of each response type the gateway gives, for an API that
 * declares neither the type nor its DEFAULT_4XX/DEFAULT_5XX.
 */
const builtInResponses: Partial<Record<GatewayResponseType, [number, string]>> = {
  MISSING_AUTHENTICATION_TOKEN: [403, 'Missing Authentication Token'],
  UNAUTHORIZED: [401, 'Unauthorized'],
  ACCESS_DENIED: [403, 'User is not authorized to access this resource'],
  THROTTLED: [429, 'Too Many Requests'],
  REQUEST_TOO_LARGE: [413, 'Request Too Long'],
  AUTHORIZER_FAILURE: [500, 'Internal server error'],
  INTEGRATION_FAILURE: [504, 'Internal server error'],
  DEFAULT_5XX: [500, 'Internal server error'],
};

/**
 * A response the gateway itself gives, as the API declares it: the type's gateway response (else
 * the DEFAULT_4XX or DEFAULT_5XX one, else API Gateway's own), its header mapping expressions
 * and its body template filled in for this request. As in AWS, no `X-Request-Id` header unless declared.
 */
function gatewayError(
  req: IncomingMessage,
  res: ServerResponse,
  api: GatewayApi,
  gatewayRequestId: string,
  type: GatewayResponseType,
  builtIn: [number, string] = builtInResponses[type] ?? [500, 'Internal server error'],
) {
  const [builtInStatus, message] = builtIn;
  const declared = api.responses.get(type) ?? api.responses.get(builtInStatus >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX');
  const status = api.responses.get(type)?.statusCode ?? builtInStatus;
  const template = declared && (declared.templates['application/json'] ?? Object.values(declared.templates)[0]);
  const variables: Record<string, string> = {
    requestId: gatewayRequestId,
    'error.responseType': type,
    'error.message': message,
    'error.messageString': JSON.stringify(message),
  };
  const body =
    template === undefined
      ? JSON.stringify({ message })
      : template.replace(/\$(?:\{context\.([\w.]+)\}|context\.([A-Za-z]\w*(?:\.[A-Za-z]\w*)*))/g, (_, braced?: string, bare?: string) => variables[braced ?? bare ?? ''] ?? '');
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  for (const [name, expression] of Object.entries(declared?.headers ?? {})) {
    const value = mappingValue(expression, gatewayRequestId, req.headers);
    if (value !== undefined) headers[name] = value;
  }
  res.writeHead(status, headers);
  res.end(body);
}

/** A gateway response header's mapping expression, evaluated: a quoted literal, the request id, or a request header. */
function mappingValue(expression: string, requestId: string, requestHeaders: IncomingHttpHeaders): string | undefined {
  const literal = /^'(.*)'$/s.exec(expression);
  if (literal) return literal[1];
  if (expression === 'context.requestId') return requestId;
  const header = /^method\.request\.header\.(.+)$/.exec(expression)?.[1];
  const value = header === undefined ? undefined : requestHeaders[header.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value;
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
