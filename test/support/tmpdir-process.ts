import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const projectRoot = join(__dirname, '..', '..');
const run = promisify(execFile);

/**
 * Runs `script` (CommonJS, requiring the project's TypeScript through tsx, from the project root)
 * in a Node process of its own whose TMPDIR is `folder`, and returns what it printed. The system's
 * temporary folder is read by Node's own modules, which a test cannot point elsewhere in-process:
 * what the script's code leaves in the system's temporary folder is then what `folder` holds.
 * The process is stopped after `withinMs`, so that a hung script fails its test rather than
 * outliving it.
 */
export async function runWithTmpdir(script: string, folder: string, withinMs = 50_000): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: projectRoot,
    env: { ...process.env, TMPDIR: folder },
    encoding: 'utf8',
    timeout: withinMs,
  });
  return stdout;
}
