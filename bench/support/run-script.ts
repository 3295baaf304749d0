import { join } from 'node:path';
import { runProcess } from '../../test/support/run-process';

const projectRoot = join(__dirname, '..', '..');

/**
 * Runs one of the project's TypeScript entries in a fresh Node process (through tsx, as
 * `npm start` does) and reads the JSON of its last line of output; a failure carries its stderr.
 */
export async function runScriptForJson(script: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<any> {
  const run = await runProcess(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: projectRoot,
    env: { ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  if (run.code !== 0) throw new Error(`${script} failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!);
}
