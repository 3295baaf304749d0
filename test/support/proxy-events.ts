import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { RouteDefinition } from '../../lambdas/api/routes';

/** A proxy event for a route, as API Gateway would send it after the authorizer. */
export function proxyEvent(
  route: Pick<RouteDefinition, 'method' | 'path'>,
  authorizer: Record<string, string>,
  overrides: Partial<APIGatewayProxyEvent> = {},
): APIGatewayProxyEvent {
  return {
    resource: route.path,
    path: route.path.replace(/\{(\w+)\}/g, '$1_0123456789abcdef'),
    httpMethod: route.method,
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'c0ffee00-0000-4000-8000-000000000001', authorizer } as unknown as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

/** An allow decision as the authorizer's context carries it. */
export function allowContext(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    decision: 'allow',
    account_id: 'acc_test',
    key_id: 'key_test',
    plan: 'free',
    charged: 'true',
    limit: '100',
    remaining: '41',
    reset: '1798761600',
    principalId: 'acc_test',
    ...overrides,
  };
}

export function lambdaContext(remainingMs = 10_000): Context {
  return { getRemainingTimeInMillis: () => remainingMs, awsRequestId: 'test' } as unknown as Context;
}
