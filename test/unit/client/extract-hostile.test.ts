import { MAX_EXTRACT_CHARS, extractCode, extractCodes, extractLink, extractLinks } from '../../../client/src';

/**
 * Extraction on hostile mail: one line of about 100 KB (what a mail's text or the console's
 * message view may hold). Each step reads the line a bounded number of times, so these end in
 * milliseconds; a quadratic reading took tens of seconds here and failed the suite's time-out.
 * Only results are asserted.
 */
const KB100 = 100_000;
const line = (unit: string, around: (filler: string) => string) => around(unit.repeat(Math.ceil(KB100 / unit.length)));

describe('extraction on a 100 KB hostile line', () => {
  it('finds the code before thousands of order numbers, refs and bare numbers on one line', () => {
    const text = line('order 12345678 ref: 99999999 ', (filler) => `Your verification code: 482913 ${filler} tel 5551234`);
    expect(extractCodes({ text })).toEqual(['482913']);
  });

  it('ranks thousands of candidates on a line that names a code by their order, without duplicates', () => {
    expect(extractCodes({ text: line('A1B2C3D4 77777777 ', (filler) => `${filler} code`) })).toEqual(['77777777', 'A1B2C3D4']);
    expect(extractCode({ text: line('1234                    ', (filler) => filler) })).toBeUndefined();
  });

  it('labels each of thousands of links on one line by the text before it', () => {
    const text = line('https://tracker.example/p ', (filler) => `Confirm your account: https://app.example/confirm?t=1 ${filler} unsubscribe https://app.example/unsubscribe`);
    expect(extractLink({ text })).toBe('https://app.example/confirm?t=1');
    expect(extractLinks({ text })).toEqual(['https://app.example/confirm?t=1', 'https://tracker.example/p']);
  });

  it('reads thousands of unclosed anchors once, and the one closed after them', () => {
    const html = line('<a href="https://x.example/verify">', (filler) => `${filler}<a href="https://app.example/reset">Reset</a>`);
    expect(extractLinks({ html })).toEqual(['https://x.example/verify']);
    expect(extractLinks({ html: line('<a href="https://x.example/verify">', (filler) => filler) })).toEqual([]);
  });

  it(`reads each part of a message up to ${MAX_EXTRACT_CHARS} characters`, () => {
    const past = ' '.repeat(MAX_EXTRACT_CHARS);
    expect(extractCode({ text: `${past}Your code: 123456` })).toBeUndefined();
    expect(extractCode({ text: `${past.slice(100)}Your code: 123456` })).toBe('123456');
    expect(extractLink({ text: `${past}https://app.example/verify` })).toBeUndefined();
  });
});
