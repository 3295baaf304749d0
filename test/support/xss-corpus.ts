import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface CorpusEntry {
  id: string;
  payload: string;
  title?: string;
}

const corpusFile = path.join(__dirname, '..', '..', '..', 'shared', 'corpus', 'xss', 'dompurify-payloads.json');

/**
 * The DOMPurify payload corpus, read where it lives (beside the project, never copied into it).
 * When it is absent outside CI, jest.config.js leaves the corpus suites out and says so; a suite
 * that runs without it fails: skipping would pass with nothing checked.
 */
export function loadXssCorpus(): CorpusEntry[] {
  if (!existsSync(corpusFile)) {
    throw new Error(`XSS corpus not found at ${corpusFile}: it is expected beside the project, at ../shared/corpus/xss`);
  }
  return JSON.parse(readFileSync(corpusFile, 'utf8')) as CorpusEntry[];
}
