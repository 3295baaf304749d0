import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionManifest } from '../../lambdas/function-manifest';
import { checkPermissions } from '../../local/iam';
import { callLogVariable, type RecordedCall } from '../../local/iam/recording';
import { checkNaming } from './synthesized-template';

/**
 * The per-function permission check (docs/permissions.md), on when `TEMPMAIL_PERMISSION_CHECK=1`
 * (`npm test` sets it): before the suites, a directory for the calls they record and the
 * template's synthesis in a process of its own; after them, every recorded call judged against the
 * role of the function that sends it in AWS, the functions being the manifest's. A denied or
 * unmappable call, a declared function the template does not build, or a function with no
 * recorded call, fails the run.
 */
const enabled = () => process.env.TEMPMAIL_PERMISSION_CHECK === '1';

interface CheckState {
  directory: string;
  template: Promise<string>;
}
const state = globalThis as typeof globalThis & { tempmailPermissionCheck?: CheckState };

export function startPermissionCheck(): void {
  if (!enabled()) return;
  const directory = mkdtempSync(join(tmpdir(), 'tempmail-calls-'));
  process.env[callLogVariable] = directory;
  const output = join(directory, 'template.json');
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'write-template.ts'), output], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, [callLogVariable]: '' },
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const template = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`the template did not synthesize:\n${errors}`))));
  });
  template.catch(() => undefined);
  state.tempmailPermissionCheck = { directory, template };
}

export function recordedCalls(directory: string): RecordedCall[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as RecordedCall);
}

export async function finishPermissionCheck(): Promise<void> {
  const check = state.tempmailPermissionCheck;
  if (!check) return;
  try {
    const template = JSON.parse(readFileSync(await check.template, 'utf8'));
    const calls = recordedCalls(check.directory);
    const report = await checkPermissions(template, calls, checkNaming, functionManifest);
    if (report.problems.length > 0) {
      throw new Error(`permission check: ${report.problems.length} problem(s)\n${report.problems.map((problem) => `  ${problem}`).join('\n')}`);
    }
    process.stdout.write(`permission check: ${calls.length} distinct calls, ${report.allowed} function requests allowed by their roles\n`);
  } finally {
    rmSync(check.directory, { recursive: true, force: true });
  }
}
