import type { Config } from '@jest/types';
import { ensureCloudAssembly } from '../../local/stack/cloud-assembly';
import { stackContext } from './stack-context';

const key = Symbol.for('tempmail.stackSynthesis');
type Holder = { [key]?: Promise<unknown> };

/**
 * A whole run (no file patterns) starts the stack's one synthesis
 * at once, in the background, so that it bundles while the suites that need no stack run; the
 * stack's suites come last (test-sequencer.js) and find it made. A run of chosen files leaves it
 * to the suites that need it (ensureCloudAssembly synthesizes under a lock, once).
 */
export function startStackSynthesis(globalConfig: Config.GlobalConfig): void {
  if (globalConfig.testPathPatterns.isSet() || process.env.TEMPMAIL_SUITE === 'browser') return;
  (globalThis as Holder)[key] = ensureCloudAssembly(stackContext, (line) => process.stdout.write(`${line}\n`)).catch(
    // The suites that need it synthesize again under the lock, and fail with the reason there.
    (error: Error) => process.stdout.write(`the stack's synthesis failed: ${error.message}\n`),
  );
}

/** Waits for a synthesis this run started (a run never ends with `cdk synth` cut off mid-write). */
export async function stackSynthesisSettled(): Promise<void> {
  await (globalThis as Holder)[key];
}
