import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const projectRoot = join(__dirname, '..', '..');

/**
 * Runs `script` (CommonJS, requiring the project's TypeScript through tsx, from the project root)
 * in a Node process of its own whose TMPDIR is `folder`, and returns what it printed. The system's
 * temporary folder is read by Node's own modules, which a test cannot point elsewhere in-process:
 * what the script's code leaves in the system's temporary folder is then what `folder` holds.
 */
export function runWithTmpdir(script: string, folder: string): string {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: projectRoot, env: { ...process.env, TMPDIR: folder }, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`the script failed (${child.status}): ${child.stderr}`);
  return child.stdout;
}
