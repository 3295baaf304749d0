import { createApiHandler } from '../../../lambdas/api/create-api-handler';
import type { RouteHandler } from '../../../lambdas/api/api-types';
import { routes, type RouteDefinition } from '../../../lambdas/api/routes';
import type { ApiServices } from '../../../lambdas/composition/services';
import { memoryLogger } from '../../support/memory-logger';
import { allowContext, lambdaContext, proxyEvent } from '../../support/proxy-events';

/** Services whose every use but logging fails the test: a refused request touches no store. */
function untouchableServices(): ApiServices {
  const logger = memoryLogger();
  return new Proxy({} as ApiServices, {
    get: (_target, name) => {
      if (name === 'logger') return logger;
      throw new Error(`services.${String(name)} used by a refused request`);
    },
  });
}

/** What a route's module answers at a used-up allowance, if anything (as both runtimes wire it). */
async function exhaustedRouteOf(route: RouteDefinition): Promise<RouteHandler | undefined> {
  const module = (await import(`../../../lambdas/api/handlers/${route.module}`)) as { exhaustedRoute?: RouteHandler };
  return module.exhaustedRoute;
}

const refusals: { context: Record<string, string>; status: number; code: string; details?: { reason: string }[] }[] = [
  { context: { decision: 'invalid_api_key' }, status: 401, code: 'invalid_api_key' },
  { context: {}, status: 401, code: 'invalid_api_key' },
  { context: { decision: 'allow' }, status: 401, code: 'invalid_api_key' },
  { context: { decision: 'forbidden' }, status: 403, code: 'forbidden' },
  { context: { decision: 'service_unavailable' }, status: 503, code: 'service_unavailable' },
  {
    context: { ...allowContext({ decision: 'quota_exhausted', charged: 'false', remaining: '0' }) },
    status: 429,
    code: 'rate_limit_exceeded',
    details: [{ reason: 'allowance_exhausted' }],
  },
];

describe('every route refuses what the authorizer refused, before its own code runs', () => {
  for (const route of routes) {
    it.each(refusals)(`${route.method} ${route.path}: $status $code`, async ({ context, status, code, details }) => {
      const business = jest.fn();
      const handler = createApiHandler(business, untouchableServices, { exhaustedRoute: await exhaustedRouteOf(route) });
      const response = await handler(proxyEvent(route, context), lambdaContext());

      expect(business).not.toHaveBeenCalled();
      expect(response.statusCode).toBe(status);
      expect(JSON.parse(String(response.body))).toEqual({
        error: { code, message: expect.any(String), request_id: 'req_c0ffee00-0000-4000-8000-000000000001', ...(details ? { details } : {}) },
      });
      expect(response.headers).toMatchObject({
        'X-Request-Id': 'req_c0ffee00-0000-4000-8000-000000000001',
        'Cache-Control': 'private, no-store',
        'Content-Type': 'application/json',
      });
      if (status === 429 || status === 503) expect(Number(response.headers!['Retry-After'])).toBeGreaterThanOrEqual(1);
      if (status === 429) {
        expect(response.headers).toMatchObject({ 'RateLimit-Limit': '100', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1798761600' });
      } else {
        expect(response.headers).not.toHaveProperty('RateLimit-Remaining');
      }
    });
  }
});

describe('at a used-up allowance', () => {
  const exhausted = allowContext({ decision: 'quota_exhausted', charged: 'false', remaining: '0' });
  const createRoute = routes.find((route) => route.id === 'createEmail')!;

  it('only POST /v1/emails has an answer of its own: the exact replay, which is not charged', async () => {
    const answering = [];
    for (const route of routes) if (await exhaustedRouteOf(route)) answering.push(route.id);
    expect(answering).toEqual(['createEmail']);
  });

  it('POST /v1/emails reads the idempotency record and nothing else, then refuses a request that has none', async () => {
    const used: string[] = [];
    const logger = memoryLogger();
    const services = new Proxy({} as ApiServices, {
      get: (_target, name) => {
        if (name === 'logger') return logger;
        if (name === 'clock') return { now: () => new Date('2026-11-22T12:00:00Z') };
        if (name === 'idempotency') return { get: async () => (used.push('idempotency.get'), undefined) };
        throw new Error(`services.${String(name)} used at a used-up allowance`);
      },
    });
    const business = jest.fn();
    const handler = createApiHandler(business, () => services, { exhaustedRoute: await exhaustedRouteOf(createRoute) });
    const event = proxyEvent(createRoute, exhausted, {
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'never-used-key-0001' },
      body: '{}',
    });
    const response = await handler(event, lambdaContext());

    expect(business).not.toHaveBeenCalled();
    expect(used).toEqual(['idempotency.get']);
    expect(response.statusCode).toBe(429);
    expect(JSON.parse(String(response.body)).error.code).toBe('rate_limit_exceeded');
    expect(response.headers).toMatchObject({ 'Retry-After': '60', 'RateLimit-Remaining': '0' });
  });
});

describe('the route table', () => {
  it('names a handler module that exports both the Lambda handler and the route', async () => {
    for (const route of routes) {
      const module = await import(`../../../lambdas/api/handlers/${route.module}`);
      expect(typeof module.handler).toBe('function');
      expect(typeof module.route).toBe('function');
    }
  });

  it('has unique ids and unique method-path pairs, all under /v1, or under /console/v1 for identity routes', () => {
    expect(new Set(routes.map((route) => route.id)).size).toBe(routes.length);
    expect(new Set(routes.map((route) => `${route.method} ${route.path}`)).size).toBe(routes.length);
    for (const route of routes as readonly RouteDefinition[]) {
      expect(route.path.startsWith(route.auth === 'identity' ? '/console/v1/' : '/v1/')).toBe(true);
    }
  });

  it('charges every API-key route but the usage record, and no console route', () => {
    const keyed = (routes as readonly RouteDefinition[]).filter((route) => route.auth !== 'identity');
    expect(keyed.filter((route) => !route.charged).map((route) => route.id)).toEqual(['getUsage']);
    expect(routes.filter((route) => route.path.startsWith('/console/')).every((route) => !route.charged)).toBe(true);
  });
});
