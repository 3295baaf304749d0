import { join } from 'node:path';
import { runProcess } from '../support/run-process';

/**
 * The type check of `npm test` (`npm run typecheck`: the service, its tests and tools, then the
 * console), run as a suite of the Jest run rather than before it: the tests are only transpiled
 * (swc), so nothing else checks types, and here the compiler's single thread shares the machine
 * with the other suites instead of leaving one of its two cores idle for half a minute. A failure
 * shows the compiler's diagnostics.
 */
const projectRoot = join(__dirname, '..', '..');
const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');

describe('the type check', () => {
  it.each([
    ['the service, its tests and tools', '.'],
    ['the console', 'console'],
  ])('finds no type error in %s (tsc -p %s)', async (_what, project) => {
    const run = await runProcess(process.execPath, [tsc, '-p', project, '--noEmit'], { cwd: projectRoot });
    expect({ exitCode: run.code, diagnostics: `${run.stdout}${run.stderr}` }).toEqual({ exitCode: 0, diagnostics: '' });
  }, 300_000);
});
