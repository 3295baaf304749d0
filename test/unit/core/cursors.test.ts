import { readCursor, signCursor, type CursorContext } from '../../../lambdas/core/cursors';
import { InvalidRequest } from '../../../lambdas/core/errors';
import { TestClock } from '../../support/test-clock';

const secret = 'unit-test-secret-0123456789abcdef';
const context: CursorContext = { accountId: 'acc_1', route: 'listDomains', pathId: '', limit: 10 };

function expectCursorRejected(read: () => unknown) {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequest);
    expect((error as InvalidRequest).details).toEqual([expect.objectContaining({ field: 'cursor' })]);
    return;
  }
  throw new Error('cursor was accepted');
}

describe('cursors', () => {
  const clock = new TestClock();

  it('round-trips a position within its query context', () => {
    const cursor = signCursor(secret, context, 'example.com', clock.now());
    expect(readCursor(secret, cursor, context, clock.now())).toBe('example.com');
  });

  it('is rejected once any character of it is changed', () => {
    const cursor = signCursor(secret, context, 'example.com', clock.now());
    for (let i = 0; i < cursor.length; i += 7) {
      const flipped = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      expectCursorRejected(() => readCursor(secret, flipped, context, clock.now()));
    }
  });

  it('is rejected with a re-signed payload of another secret', () => {
    const forged = signCursor('another-secret-0123456789abcdefgh', context, 'zzz', clock.now());
    expectCursorRejected(() => readCursor(secret, forged, context, clock.now()));
  });

  it.each([
    ['another account', { accountId: 'acc_2' }],
    ['another route', { route: 'listMessages' }],
    ['another path id', { pathId: 'eml_x' }],
    ['another limit', { limit: 11 }],
  ])('is rejected in %s', (_name, change) => {
    const cursor = signCursor(secret, context, 'p', clock.now());
    expectCursorRejected(() => readCursor(secret, cursor, { ...context, ...change }, clock.now()));
  });

  it('expires one hour after it was issued', () => {
    const issued = new TestClock();
    const cursor = signCursor(secret, context, 'p', issued.now());
    issued.advance(3599_000);
    expect(readCursor(secret, cursor, context, issued.now())).toBe('p');
    issued.advance(1_000);
    expectCursorRejected(() => readCursor(secret, cursor, context, issued.now()));
  });

  it.each(['', 'abc', 'a.b.c', '..', 'not base64!.sig'])('rejects garbage %j', (garbage) => {
    expectCursorRejected(() => readCursor(secret, garbage, context, clock.now()));
  });
});
