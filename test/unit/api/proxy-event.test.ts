import { allHeaderValues, singleHeader, toApiRequest } from '../../../lambdas/api/proxy-event';
import { decodeDecision, type AccountDecision } from '../../../lambdas/api/authorizer-context';
import { InvalidRequest } from '../../../lambdas/core/errors';
import { allowContext, proxyEvent } from '../../support/proxy-events';

const route = { method: 'POST', path: '/v1/emails' } as const;
const decision = decodeDecision(allowContext()) as AccountDecision;

describe('headers of a proxy event', () => {
  it('reads a repeated header from multiValueHeaders, where API Gateway keeps every value', () => {
    // API Gateway REST: `headers` holds the last value only; `multiValueHeaders` holds them all.
    const event = proxyEvent(route, allowContext(), {
      headers: { 'Idempotency-Key': 'second-key-0000001' },
      multiValueHeaders: { 'Idempotency-Key': ['first-key-00000001', 'second-key-0000001'] },
    });
    const request = toApiRequest(event, decision);
    expect(request.headerValues['idempotency-key']).toEqual(['first-key-00000001', 'second-key-0000001']);
    expect(() => singleHeader(request, 'Idempotency-Key')).toThrow(InvalidRequest);
  });

  it('counts names that differ only in case as one header', () => {
    const values = allHeaderValues({ multiValueHeaders: { 'Idempotency-Key': ['a'], 'idempotency-key': ['b'] } });
    expect(values['idempotency-key']).toEqual(['a', 'b']);
  });

  it('falls back to headers for an event without multiValueHeaders, and reads a single value', () => {
    const request = toApiRequest(
      proxyEvent(route, allowContext(), { headers: { 'Idempotency-Key': 'only-key-000000001' }, multiValueHeaders: {} }),
      decision,
    );
    expect(singleHeader(request, 'idempotency-key')).toBe('only-key-000000001');
    expect(singleHeader(request, 'If-None-Match')).toBeUndefined();
  });
});
