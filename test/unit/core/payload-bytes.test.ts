import fc from 'fast-check';
import { payloadBytes, prefixWithin } from '../../../lambdas/core/payload-bytes';

/** What Lambda's runtime sends for a string inside a route's JSON body: escaped twice, less the 6 bytes of quotes. */
const serialized = (value: string) => Buffer.byteLength(JSON.stringify(JSON.stringify(value)), 'utf8') - 6;

describe('payloadBytes', () => {
  it.each([
    ['plain ASCII', 'hello, world <p>&amp;</p>'],
    ['quotes and backslashes', '"\\"\\'],
    ['short escapes', '\b\f\n\r\t'],
    ['other control characters', '\u0000\u0001\u001f'],
    ['two- and three-byte characters', 'üß€\u2028\u2029'],
    ['a surrogate pair', '😀'],
    ['lone surrogates', '\ud800x\udc00'],
  ])('counts %s as the runtime serializes them', (_name, value) => {
    expect(payloadBytes(value)).toBe(serialized(value));
  });

  it('counts any string as the runtime serializes it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (value) => payloadBytes(value) === serialized(value)),
      { numRuns: 300 },
    );
  });

  it('costs 7 bytes for each character at worst', () => {
    expect(payloadBytes('\u0001'.repeat(1000))).toBe(7000);
  });

  it('stops counting once past the budget it is measured against', () => {
    expect(payloadBytes('x'.repeat(1_000_000), 10)).toBe(11);
  });
});

describe('prefixWithin', () => {
  it('keeps the longest prefix within the budget, never half a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), fc.nat(700), (value, budget) => {
        const prefix = prefixWithin(value, budget);
        const next = value.slice(0, prefix.length + (value.codePointAt(prefix.length)! > 0xffff ? 2 : 1));
        return (
          value.startsWith(prefix) &&
          payloadBytes(prefix) <= budget &&
          (prefix.length === value.length || payloadBytes(next) > budget)
        );
      }),
      { numRuns: 300 },
    );
    expect(prefixWithin('a😀', 4)).toBe('a');
  });
});
