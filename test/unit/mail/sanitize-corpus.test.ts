import { sanitizeEmailHtml } from '../../../lambdas/mail/sanitize-email-html';
import { dangerousResidue } from '../../support/html-residue';
import { loadXssCorpus } from '../../support/xss-corpus';

const corpus = loadXssCorpus();

describe('sanitizeEmailHtml against the DOMPurify payload corpus', () => {
  it('holds the 433 payloads its README describes, with distinct ids', () => {
    expect(corpus).toHaveLength(433);
    expect(new Set(corpus.map((entry) => entry.id)).size).toBe(433);
  });

  it.each(corpus)('$id leaves no dangerous residue', ({ payload }) => {
    expect(dangerousResidue(sanitizeEmailHtml(payload))).toEqual([]);
  });
});
