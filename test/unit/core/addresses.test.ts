import { assertLocalPartAllowed, composeAddress, isReservedLocalPart, localPartPattern, randomLocalPart } from '../../../lambdas/core/addresses';
import { PolicyViolation } from '../../../lambdas/core/errors';

describe('local parts', () => {
  it.each(['postmaster', 'abuse', 'hostmaster', 'webmaster', 'mailer-daemon', 'mailer.daemon', 'no_reply', 'noreply', 'root'])(
    'treats %j as reserved',
    (name) => expect(isReservedLocalPart(name)).toBe(true),
  );

  it.each(['alice', 'signup-test', 'postmaster2', 'abuser', 'info-desk'])('allows %j', (name) => {
    expect(isReservedLocalPart(name)).toBe(false);
    expect(() => assertLocalPartAllowed(name)).not.toThrow();
  });

  it('refuses two dots in a row as an invalid address', () => {
    expect(() => assertLocalPartAllowed('a..b')).toThrow(PolicyViolation);
  });

  it('chooses random local parts that fit the contract and do not repeat', () => {
    const chosen = Array.from({ length: 2000 }, randomLocalPart);
    for (const name of chosen) {
      expect(name).toMatch(localPartPattern);
      expect(name).toHaveLength(16);
      expect(isReservedLocalPart(name)).toBe(false);
    }
    expect(new Set(chosen).size).toBe(chosen.length);
  });

  it('refuses an address longer than SMTP allows', () => {
    expect(composeAddress('a', 'example.test')).toBe('a@example.test');
    expect(() => composeAddress('a'.repeat(64), `${'b'.repeat(63)}.`.repeat(3) + 'cc')).toThrow(PolicyViolation);
  });
});
