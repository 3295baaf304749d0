import type { ApiResult, ConsoleRouteHandler, RouteHandler } from '../api/api-types';
import { createApiHandler } from '../api/create-api-handler';
import { createConsoleHandler } from '../api/create-console-handler';
import type { RouteId, routes } from '../api/routes';
import { readsCursorSecret, routeFunctions, verifiesIdentity } from '../function-manifest';
import { lambdaCursorSecret, withCursorSecret } from './cursor-secret';
import { lambdaFunctionServices, type FunctionServices } from './lambda-function-services';
import type { ApiServices, ConsoleServices, CursorSecret, CursorServices } from './services';

/** A row of the route table, by its id, with its literal types. */
type RouteRow<Id extends RouteId> = Extract<(typeof routes)[number], { id: Id }>;

/**
 * The services a route's row names: the API's, the blob store where it has blob access, the
 * identity verifier for a console route, and the cursor secret where the row has the secret.
 * Only `lambdaRoute` (and a runtime holding the secret for every route, as `npm start` does)
 * produces the last.
 */
export type RouteServices<Id extends RouteId> = FunctionServices<{ access: RouteRow<Id>['access']; trigger: { kind: 'route'; route: RouteRow<Id> } }> &
  (RouteRow<Id>['access'] extends { readonly secrets: readonly 'cursor'[] } ? CursorSecret : unknown);

/** What a route's module must export as `route`: a console route's handler for an identity row, else an API route's. */
export type RouteFunction<Id extends RouteId> = RouteRow<Id> extends { readonly auth: 'identity' }
  ? ConsoleRouteHandler<RouteServices<Id> & ConsoleServices>
  : RouteHandler<RouteServices<Id> & ApiServices>;

export interface LambdaRouteOptions<Id extends RouteId> {
  /** The route's uncharged answer when the allowance is used up (create-api-handler.ts). */
  exhaustedRoute?: RouteHandler<RouteServices<Id> & ApiServices>;
}

/**
 * The Lambda function of one row of the route table: the route's code in the pipeline its row
 * calls for (a console route's or an API route's, streamed where the row streams), with the
 * services its row names. A handler module's last line names its row and nothing else, so adding
 * a route is its handler and its row. The types above are read from the same row as the wiring
 * below, which is why the one cast here holds.
 */
export function lambdaRoute<Id extends RouteId>(id: Id, route: RouteFunction<Id>, options: LambdaRouteOptions<Id> = {}) {
  const declaration = routeFunctions.find((candidate) => candidate.name === id);
  if (declaration?.trigger.kind !== 'route') throw new Error(`the manifest has no route ${id}`);
  const services = lambdaFunctionServices(declaration);
  // Each part is guarded first by the bundle's constant, inline (bundle-defines.ts): then the other routes' bundles hold no Secrets Manager client.
  const wired = <R>(handler: (request: R, services: CursorServices<ConsoleServices>) => Promise<ApiResult>) =>
    process.env.TEMPMAIL_BUNDLE_CURSOR_SECRET !== 'false' && readsCursorSecret(declaration)
      ? withCursorSecret(handler, lambdaCursorSecret)
      : (handler as (request: R, services: ConsoleServices) => Promise<ApiResult>);
  const own = services as () => ConsoleServices;
  if (process.env.TEMPMAIL_BUNDLE_IDENTITY !== 'false' && verifiesIdentity(declaration)) {
    return createConsoleHandler(wired(route as ConsoleRouteHandler<CursorServices<ConsoleServices>>), own);
  }
  const { exhaustedRoute } = options as LambdaRouteOptions<RouteId> & { exhaustedRoute?: RouteHandler<CursorServices<ConsoleServices>> };
  return createApiHandler(wired(route as RouteHandler<CursorServices<ConsoleServices>>), own, {
    stream: declaration.trigger.route.stream ?? false,
    ...(exhaustedRoute ? { exhaustedRoute: wired(exhaustedRoute) } : {}),
  });
}
