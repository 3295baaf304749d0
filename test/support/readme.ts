import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The first fenced code block after `marker` in one of the project's documents (README.md by
 * default, or a page under docs/), as the reader sees it.
 */
export function readmeBlock(marker: string, document = 'README.md'): string {
  const text = readFileSync(join(__dirname, '..', '..', document), 'utf8');
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${document} has no ${marker}`);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(at));
  if (!block) throw new Error(`${document} has no code block after ${marker}`);
  return `${block[1]!}\n`;
}
