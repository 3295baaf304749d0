import { flattenHtmlNesting } from '../../../lambdas/mail/flatten-html-nesting';
import { asParsed, fuzzed } from '../../support/parsed-html';
import { loadXssCorpus } from '../../support/xss-corpus';

/** The flattening against the third-party XSS corpus beside the project (jest.config.js says when it is absent). */
describe('flattenHtmlNesting on the XSS corpus', () => {
  it('leaves markup within the limit as it is, byte for byte', () => {
    for (const { payload } of loadXssCorpus()) expect(flattenHtmlNesting(payload)).toBe(payload);
  });

  it('bounds the depth and keeps the text the parser reads, for every payload of the XSS corpus and 300 fuzzed documents', () => {
    const documents = [...loadXssCorpus().map(({ payload }) => payload), ...Array.from({ length: 300 }, (_, seed) => fuzzed(seed + 1, 400))];
    for (const html of documents) {
      const flattened = asParsed(flattenHtmlNesting(html, 3));
      // A raw-text element (script, style) is read as one more level that closes at once.
      expect(flattened.depth).toBeLessThanOrEqual(4);
      expect(flattened.text).toBe(asParsed(html).text);
    }
  });
});
