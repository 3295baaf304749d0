import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sanitizeEmailHtml } from '../../../lambdas/inbound/sanitize-email-html';
import { dangerousResidue } from '../../support/html-residue';

interface CorpusEntry {
  id: string;
  payload: string;
  title?: string;
}

const repoRoot = path.join(__dirname, '..', '..', '..');
const corpusFile = path.join(repoRoot, '..', 'shared', 'corpus', 'xss', 'dompurify-payloads.json');

/**
 * The DOMPurify payload corpus, read where it lives (beside the project, never copied into it).
 * A missing corpus fails the suite: skipping would pass with nothing checked.
 */
function loadCorpus(): CorpusEntry[] {
  if (!existsSync(corpusFile)) {
    throw new Error(`XSS corpus not found at ${corpusFile}: it is expected beside the project, at ../shared/corpus/xss`);
  }
  return JSON.parse(readFileSync(corpusFile, 'utf8')) as CorpusEntry[];
}

const corpus = loadCorpus();

describe('sanitizeEmailHtml against the DOMPurify payload corpus', () => {
  it('holds the 433 payloads its README describes, with distinct ids', () => {
    expect(corpus).toHaveLength(433);
    expect(new Set(corpus.map((entry) => entry.id)).size).toBe(433);
  });

  it.each(corpus)('$id leaves no dangerous residue', ({ payload }) => {
    expect(dangerousResidue(sanitizeEmailHtml(payload))).toEqual([]);
  });
});
