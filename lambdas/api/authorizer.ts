import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorize, type Credentials } from '../core/authorize';
import { clientAddress, originVerifyHeader, viewerAddressHeader } from '../core/client-address';
import { Unavailable } from '../core/errors';
import { encodeDecision, type AuthorizerContext } from './authorizer-context';
import { authorizerOriginVerify } from '../composition/lambda-services';
import { lambdaFunctionServices } from '../composition/lambda-function-services';
import { authorizerFunction } from '../function-manifest';
import { allHeaderValues } from './proxy-event';
import { routeForResource } from './routes';
import type { ApiServices } from '../composition/services';

/**
 * The REQUEST authorizer (DESIGN: request flow 1 and 4). It always allows the call through to
 * the route and hands its decision over in the context, because only our own code can answer
 * 401, 403 and 429 with the contract's body and per-request headers. The context also names the
 * client (`client_ip`) for the stage's access log, which can print the context but no request
 * header: `originVerify` is the value the console's distribution adds (lib/viewer-address.ts).
 */
export function createAuthorizer(services: () => ApiServices, originVerify?: string) {
  return async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const deps = services();
    const route = routeForResource(event.httpMethod, event.resource);
    let context: AuthorizerContext;
    try {
      const decision = await authorize(credentialsOf(event), { charge: route?.charged ?? true }, deps);
      context = encodeDecision(decision, deps.clock.now());
    } catch (error) {
      if (!(error instanceof Unavailable)) throw error;
      deps.logger.warn('authorizer storage unavailable', { route: event.resource, cause: (error.cause as Error)?.name });
      context = encodeDecision({ decision: 'service_unavailable' }, deps.clock.now());
    }
    return {
      principalId: context['account_id'] || 'anonymous',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
      },
      context: { ...context, client_ip: clientAddressOf(event, originVerify) },
    };
  };
}

/** The credentials of a request: every `Authorization` value, whatever its case, and the query. */
export function credentialsOf(event: APIGatewayRequestAuthorizerEvent): Credentials {
  const authorization = allHeaderValues(event)['authorization'] ?? [];
  const query = event.multiValueQueryStringParameters ?? mapValues(event.queryStringParameters ?? {});
  return { authorization, query };
}

/** The client's address: the viewer's through the console's distribution, else the connection's. */
export function clientAddressOf(event: APIGatewayRequestAuthorizerEvent, originVerify: string | undefined): string {
  const headers = allHeaderValues(event);
  const origin = {
    connection: event.requestContext?.identity?.sourceIp ?? '',
    viewer: headers[viewerAddressHeader] ?? [],
    originVerify: headers[originVerifyHeader] ?? [],
  };
  return clientAddress(origin, originVerify);
}

function mapValues(single: Record<string, string | undefined>): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(single).flatMap(([name, value]) => (value === undefined ? [] : [[name, [value]]])),
  );
}

export const handler = createAuthorizer(lambdaFunctionServices(authorizerFunction), authorizerOriginVerify());
