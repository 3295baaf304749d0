import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Clock } from '../../lambdas/core/ports/clock';
import { gatewayAccount, type GatewayMethod } from './gateway-api';

/**
 * The parts of the event and context API Gateway REST hands a Lambda proxy integration, built
 * exactly as AWS builds them so the functions under test read what they read when deployed.
 */

/** Headers and query string in both of API Gateway's shapes: last value, and all values. */
export function requestParts(req: IncomingMessage, url: URL) {
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

/** The event's `requestContext` for this request, before any authorizer has added its context. */
export function buildRequestContext(req: IncomingMessage, stage: string, method: GatewayMethod, path: string, requestId: string, received: Date) {
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

/** The Lambda context of an invocation; its remaining time is read on the gateway's clock, as the request's time is. */
export function lambdaContext(requestId: string, route: GatewayMethod, timeoutMs: number, clock: Clock): Context {
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
