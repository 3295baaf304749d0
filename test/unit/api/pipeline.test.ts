import type { ApiResult } from '../../../lambdas/api/api-types';
import { createApiHandler } from '../../../lambdas/api/create-api-handler';
import type { ApiServices } from '../../../lambdas/composition/services';
import { Conflict, InvalidRequest, NotFound, PayloadTooLarge, PolicyViolation, Unavailable } from '../../../lambdas/core/errors';
import { accountFixture, stubPorts } from '../../support/port-stubs';
import { memoryLogger } from '../../support/memory-logger';
import { allowContext, lambdaContext, proxyEvent } from '../../support/proxy-events';
import { TestClock } from '../../support/test-clock';

const route = { method: 'GET', path: '/v1/things' } as const;

function setup(result: () => Promise<ApiResult>) {
  const ports = stubPorts({ account: accountFixture() });
  const logger = memoryLogger();
  const services = { ...ports, logger, env: 'local', clock: new TestClock(), cursorSecret: 's' } as unknown as ApiServices;
  const handler = createApiHandler(result, () => services);
  return { ports, logger, handler };
}

describe('the shared pipeline', () => {
  it('answers a route result as JSON with the common headers, an ETag and the allowance', async () => {
    const { handler, ports } = setup(async () => ({ status: 200, body: { data: { a: 1 } } }));
    const response = await handler(proxyEvent(route, allowContext()), lambdaContext());
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(String(response.body))).toEqual({ data: { a: 1 } });
    expect(response.headers).toMatchObject({
      'Content-Type': 'application/json',
      'Cache-Control': 'private, no-store',
      'X-Request-Id': 'req_c0ffee00-0000-4000-8000-000000000001',
      'RateLimit-Limit': '100',
      'RateLimit-Remaining': '41',
      'RateLimit-Reset': '1798761600',
      ETag: expect.stringMatching(/^"[A-Za-z0-9_-]{32}"$/),
    });
    expect(ports.ledger.refund).not.toHaveBeenCalled();
  });

  it('answers 304 without a body when If-None-Match names the current tag, and keeps the charge', async () => {
    const { handler, ports } = setup(async () => ({ status: 200, body: { data: 1 } }));
    const first = await handler(proxyEvent(route, allowContext()), lambdaContext());
    const tag = first.headers!.ETag as string;
    for (const header of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
      const response = await handler(proxyEvent(route, allowContext(), { headers: { 'If-None-Match': header } }), lambdaContext());
      expect(response.statusCode).toBe(304);
      expect(response.body).toBe('');
      expect(response.headers).toMatchObject({ ETag: tag, 'X-Request-Id': expect.any(String) });
      expect(response.headers).not.toHaveProperty('Content-Type');
    }
    const stale = await handler(proxyEvent(route, allowContext(), { headers: { 'if-none-match': '"stale"' } }), lambdaContext());
    expect(stale.statusCode).toBe(200);
    expect(ports.ledger.refund).not.toHaveBeenCalled();
  });

  it.each([
    [new InvalidRequest('bad', [{ field: 'limit', reason: 'too big' }]), 400, 'invalid_request', false],
    [new NotFound(), 404, 'resource_not_found', false],
    [new Conflict('address_unavailable', 'taken'), 409, 'address_unavailable', false],
    [new PolicyViolation('no', [{ field: 'local_part', reason: 'reserved_name' }]), 422, 'policy_violation', false],
    [new PayloadTooLarge(16384), 413, 'payload_too_large', true],
    [new Unavailable(2), 503, 'service_unavailable', true],
    [new TypeError('a bug'), 500, 'internal_error', true],
  ])('maps %p to %i %s, refunding only uncharged outcomes', async (error, status, code, refunded) => {
    const { handler, ports } = setup(async () => {
      throw error;
    });
    const response = await handler(proxyEvent(route, allowContext()), lambdaContext());
    expect(response.statusCode).toBe(status);
    const body = JSON.parse(String(response.body));
    expect(body.error.code).toBe(code);
    expect(body.error.request_id).toBe('req_c0ffee00-0000-4000-8000-000000000001');
    expect(Object.keys(body)).toEqual(['error']);
    expect(ports.ledger.refund).toHaveBeenCalledTimes(refunded ? 1 : 0);
    expect(response.headers!['RateLimit-Remaining']).toBe(refunded ? '42' : '41');
  });

  it('carries details on 400 and Retry-After on 503', async () => {
    const bad = setup(async () => {
      throw new InvalidRequest('bad', [{ field: 'cursor', reason: 'invalid' }]);
    });
    const response = await bad.handler(proxyEvent(route, allowContext()), lambdaContext());
    expect(JSON.parse(String(response.body)).error.details).toEqual([{ field: 'cursor', reason: 'invalid' }]);
    const down = setup(async () => {
      throw new Unavailable(3);
    });
    expect((await down.handler(proxyEvent(route, allowContext()), lambdaContext())).headers!['Retry-After']).toBe('3');
  });

  it('logs a server failure by name, never a body or a key', async () => {
    const { handler, logger } = setup(async () => {
      throw new TypeError('cannot read x');
    });
    await handler(
      proxyEvent(route, allowContext(), { headers: { Authorization: 'Bearer tm_local_secret' }, body: '{"secret":1}' }),
      lambdaContext(),
    );
    expect(logger.lines).toHaveLength(1);
    const line = JSON.stringify(logger.lines[0]);
    expect(line).toContain('TypeError');
    expect(line).not.toContain('tm_local_secret');
    expect(line).not.toContain('secret":1');
  });

  it('refunds an exact replay', async () => {
    const { handler, ports } = setup(async () => ({ status: 201, body: {}, headers: { 'Idempotency-Replayed': 'true' } }));
    const response = await handler(proxyEvent({ method: 'POST', path: '/v1/things' }, allowContext()), lambdaContext());
    expect(response.statusCode).toBe(201);
    expect(ports.ledger.refund).toHaveBeenCalledWith('acc_test');
  });

  it('refunds nothing for an uncharged route', async () => {
    const { handler, ports } = setup(async () => {
      throw new Unavailable();
    });
    await handler(proxyEvent(route, allowContext({ charged: 'false' })), lambdaContext());
    expect(ports.ledger.refund).not.toHaveBeenCalled();
  });

  it('answers 503 and refunds when the route would outlive the function deadline', async () => {
    const { handler, ports } = setup(() => new Promise<ApiResult>(() => undefined));
    const response = await handler(proxyEvent(route, allowContext()), lambdaContext(1_050));
    expect(response.statusCode).toBe(503);
    expect(ports.ledger.refund).toHaveBeenCalledTimes(1);
  });

  it('answers 500, uncharged, instead of a buffered response Lambda would refuse', async () => {
    // Each control character is 7 bytes once the body is escaped into the proxy response: 6.3 MB.
    const { handler, ports, logger } = setup(async () => ({ status: 200, body: { data: '\u0001'.repeat(900_000) } }));
    const response = await handler(proxyEvent(route, allowContext()), lambdaContext());
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(String(response.body)).error).toEqual(expect.objectContaining({ code: 'internal_error' }));
    expect(ports.ledger.refund).toHaveBeenCalledTimes(1);
    expect(response.headers).toMatchObject({ 'RateLimit-Remaining': '42', 'X-Request-Id': expect.any(String) });
    expect(logger.lines).toEqual([expect.objectContaining({ message: 'request failed', error: 'ResponseTooLarge' })]);
  });

  it('answers a buffered response just within the limit, charged', async () => {
    const { handler, ports } = setup(async () => ({ status: 200, body: { data: '\u0001'.repeat(850_000) } }));
    const response = await handler(proxyEvent(route, allowContext()), lambdaContext());
    expect(response.statusCode).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(response))).toBeGreaterThan(5_900_000);
    expect(ports.ledger.refund).not.toHaveBeenCalled();
  });

  it('keeps the answer when the refund itself fails, and logs it', async () => {
    const { handler, ports, logger } = setup(async () => {
      throw new Unavailable();
    });
    ports.ledger.refund.mockRejectedValueOnce(new Error('down'));
    const response = await handler(proxyEvent(route, allowContext()), lambdaContext());
    expect(response.statusCode).toBe(503);
    expect(logger.lines.map((line) => line.message)).toContain('refund failed');
  });

  it('rejects a repeated query parameter with 400 on that field', async () => {
    const business = jest.fn();
    const { handler } = setup(business);
    const response = await handler(
      proxyEvent(route, allowContext(), { multiValueQueryStringParameters: { limit: ['1', '2'] } }),
      lambdaContext(),
    );
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(String(response.body)).error.details).toEqual([{ field: 'limit', reason: 'must be given at most once' }]);
    expect(business).not.toHaveBeenCalled();
  });
});
