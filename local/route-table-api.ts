import { apiDeclaration, routes, type RouteDefinition } from '../lambdas/api/routes';
import { declaredGatewayResponse, gatewayResponseTable } from '../lib/gateway-responses';
import type { AuthorizerFunction, GatewayApi, RequestAuthorizer, RouteFunction } from './api-gateway';

/**
 * The API as `npm start` serves it, from what the CDK construct builds the stack from: the shared
 * route table, the key authorizer with its declared identity source and caching, the gateway
 * response table and the binary media types. The console routes have no gateway step here: their
 * functions verify the identity token themselves (as they do in AWS too), so a refused token is
 * their 401 `invalid_token`; `npm run start:stack` adds the template's Cognito authorizer in front.
 * No throttle: the stage's limits are the template's, applied by `npm run start:stack`.
 */
export function routeTableApi(authorizer: AuthorizerFunction, functions: ReadonlyMap<string, RouteFunction>): GatewayApi {
  const keyAuthorizer: RequestAuthorizer = { ...apiDeclaration.keyAuthorizer, invoke: authorizer };
  return {
    stage: 'v1',
    methods: (routes as readonly RouteDefinition[]).map((route) => ({
      id: route.id,
      method: route.method,
      path: route.path,
      authorization: route.auth === 'identity' ? { type: 'NONE' } : { type: 'CUSTOM', authorizer: keyAuthorizer },
      target: functions.get(route.id),
    })),
    responses: new Map(gatewayResponseTable.map((row) => [row.type, declaredGatewayResponse(row)])),
    binaryMediaTypes: apiDeclaration.binaryMediaTypes,
  };
}
