import { generateApiKey } from '../../../lambdas/core/api-keys';
import { Conflict, InvalidRequest, PolicyViolation, Unavailable } from '../../../lambdas/core/errors';
import {
  idempotencyRecordKey,
  isRecordedRefusal,
  parseIdempotencyKey,
  refusalError,
  requestHash,
  toRefusal,
} from '../../../lambdas/core/idempotency';

describe('Idempotency-Key', () => {
  it.each([undefined, '', 'short', 'x'.repeat(256), 'with space 1234567', 'caf\u00e9-000000000000', 'tab\there-000000000'])(
    'refuses %j',
    (key) => expect(() => parseIdempotencyKey(key)).toThrow(InvalidRequest),
  );

  it('accepts 16 to 255 printable ASCII characters', () => {
    for (const key of ['!'.repeat(16), '~'.repeat(255), 'order-2026-11-22-0001']) expect(parseIdempotencyKey(key)).toBe(key);
  });

  it('refuses a key that carries an API key', () => {
    expect(() => parseIdempotencyKey(`retry-${generateApiKey('local')}`)).toThrow('must not contain an API key');
  });

  it('is stored hashed and scoped to account and operation', () => {
    const key = idempotencyRecordKey('acc_1', 'createEmail', 'my-secret-looking-key');
    expect(key).toMatch(/^acc_1#createEmail#[0-9a-f]{64}$/);
    expect(key).not.toContain('my-secret-looking-key');
    expect(idempotencyRecordKey('acc_2', 'createEmail', 'my-secret-looking-key')).not.toBe(key);
  });
});

describe('request equivalence', () => {
  it('ignores key order and absent fields', () => {
    expect(requestHash({ a: 1, b: 'x' })).toBe(requestHash({ b: 'x', a: 1 }));
    expect(requestHash({ a: 1, b: undefined })).toBe(requestHash({ a: 1 }));
  });

  it('tells different values apart', () => {
    expect(requestHash({ local_part: 'a' })).not.toBe(requestHash({ local_part: 'b' }));
    expect(requestHash({})).not.toBe(requestHash({ domain: 'x' }));
  });
});

describe('recorded refusals', () => {
  it.each([
    new Conflict('address_unavailable', 'This address has already been issued.'),
    new PolicyViolation('Addresses cannot be created on this domain.', [{ field: 'domain', reason: 'domain_not_allowed' }]),
  ])('answers $code again with the same class, code, message and details', (error) => {
    expect(isRecordedRefusal(error)).toBe(true);
    const again = refusalError(JSON.parse(JSON.stringify(toRefusal(error))));
    expect(again).toBeInstanceOf(error.constructor);
    expect({ code: again.code, message: again.message, details: again.details }).toEqual({
      code: error.code,
      message: error.message,
      details: error.details,
    });
  });

  it('never records a temporary failure', () => {
    expect(isRecordedRefusal(new Unavailable(1))).toBe(false);
    expect(isRecordedRefusal(new Error('boom'))).toBe(false);
  });
});
