import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { GatewayResponseType } from '../lib/gateway-responses';
import { systemClock } from '../lambdas/adapters/system-clock';
import type { Clock } from '../lambdas/core/ports/clock';
import { newGatewayRequestId, requestIdFor } from '../lambdas/core/ids';
import { matchRoute } from '../lambdas/api/routes';
import { authorize } from './gateway/authorize';
import { answerClientError } from './gateway/client-error-response';
import type { GatewayApi } from './gateway/gateway-api';
import { gatewayError } from './gateway/gateway-error';
import { defaultIntegrationTimeoutMs, gatewayMaxBodyBytes, integrationFailure, integrationTimedOut, withinIntegrationTimeout, type IntegrationFailure } from './gateway/gateway-limits';
import { GatewayState } from './gateway/gateway-state';
import { isBinaryMediaType, readBody, writeResult } from './gateway/proxy-body';
import { buildRequestContext, lambdaContext, requestParts } from './gateway/proxy-event';
import { relayStream } from './gateway/relay-stream';
import { servePublishedDocument } from './published-documents';

export type {
  AuthorizerFunction,
  CognitoAuthorizer,
  GatewayApi,
  GatewayMethod,
  MethodAuthorization,
  ProxyFunction,
  RequestAuthorizer,
  RouteFunction,
  StreamingFunction,
} from './gateway/gateway-api';
export { clientErrorResponse } from './gateway/client-error-response';
export { gatewayMaxBodyBytes, InvocationRejected } from './gateway/gateway-limits';

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

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}
