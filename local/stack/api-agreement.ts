import type { RouteDefinition } from '../../lambdas/api/routes';
import type { ApiAuthorizer, ApiMethod } from './template';

/** How the local front calls each kind of authorizer: on every request, nothing cached. */
const servedAuthorizers: Record<string, { identitySource: string; how: string }> = {
  REQUEST: { identitySource: 'context.requestId', how: 'calls the key authorizer on every request' },
  COGNITO_USER_POOLS: { identitySource: 'method.request.header.Authorization', how: 'hands the identity token to the function on every request' },
};

const key = (method: string, path: string) => `${method} ${path}`;

/**
 * Where the template's API differs from what the local front serves (the front routes by the
 * shared route table, builds API Gateway's events and answers its gateway responses): a method
 * with no route or a route with no method, another authorization or transfer mode, an authorizer
 * with another identity source or a cached result. `npm run start:stack` refuses to start on any,
 * naming each, rather than serve an API that is not the template's.
 */
export function apiDisagreements(methods: ApiMethod[], authorizers: ApiAuthorizer[], routeTable: readonly RouteDefinition[]): string[] {
  const problems: string[] = [];
  const byKey = new Map(methods.map((method) => [key(method.httpMethod, method.path), method]));
  for (const route of routeTable) {
    const method = byKey.get(key(route.method, route.path));
    byKey.delete(key(route.method, route.path));
    if (!method) {
      problems.push(`${key(route.method, route.path)}: in the route table, but the template has no such method`);
      continue;
    }
    const authorization = route.auth === 'identity' ? 'COGNITO_USER_POOLS' : 'CUSTOM';
    if (method.authorization !== authorization) problems.push(`${key(route.method, route.path)}: the template authorizes it with ${method.authorization}, the front with ${authorization}`);
    if (method.streamed !== (route.stream === true)) problems.push(`${key(route.method, route.path)}: the template ${method.streamed ? 'streams' : 'buffers'} its response, the front does not`);
  }
  for (const extra of byKey.keys()) problems.push(`${extra}: a method of the template that no route of the table serves`);
  for (const authorizer of authorizers) {
    const served = servedAuthorizers[authorizer.type];
    if (!served) {
      problems.push(`a ${authorizer.type} authorizer, which the front does not emulate`);
      continue;
    }
    if (authorizer.identitySource !== served.identitySource || authorizer.cacheTtlSeconds !== 0) {
      problems.push(
        `the ${authorizer.type} authorizer declares identity source ${authorizer.identitySource} cached ${authorizer.cacheTtlSeconds} s; the front ${served.how} (${served.identitySource}, not cached)`,
      );
    }
  }
  return problems;
}
