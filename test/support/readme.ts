import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The first fenced code block after `marker` in the project's README.md, as the reader sees it. */
export function readmeBlock(marker: string): string {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${marker}`);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!block) throw new Error(`README.md has no code block after ${marker}`);
  return `${block[1]!}\n`;
}
