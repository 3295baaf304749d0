import { startContractCoverage } from './contract-coverage';
import type { Config } from '@jest/types';
import { startPermissionCheck } from './permission-check';
import { startRunScratch } from './run-scratch';
import { startStackSynthesis } from './stack-synthesis';

/**
 * Once per run, before any suite: when the run was started through `shifted-clock.sh`, the wall
 * clock must really read the shifted date. Should libfaketime not take hold (a static binary, a
 * stripped preload), the run would silently test on today's date again; it stops here instead.
 */
const dayMs = 24 * 60 * 60 * 1000;

export default function globalSetup(globalConfig: Config.GlobalConfig): void {
  checkShiftedClock();
  // First, so that every worker, and every folder made after this, uses the run's temporary folder.
  startRunScratch();
  // The stack's one synthesis bundles in the background while the suites that need no stack run.
  startStackSynthesis(globalConfig);
  // The per-function permission check (docs/permissions.md) starts recording; global-teardown.ts judges.
  startPermissionCheck();
  // Each worker records the documented (operation, status) pairs it met; global-teardown.ts judges a whole run.
  startContractCoverage();
}

function checkShiftedClock(): void {
  const offset = process.env.TEMPMAIL_CLOCK_SHIFT;
  if (!offset) return;
  const parsed = /^([+-])(\d+)d$/.exec(offset);
  if (!parsed) throw new Error(`TEMPMAIL_CLOCK_SHIFT=${offset}: give the shift in whole days, such as +365d or -365d`);
  const expected = (parsed[1] === '-' ? -1 : 1) * Number(parsed[2]) * dayMs;
  const realStart = Number(process.env.TEMPMAIL_REAL_START_MS);
  const observed = Date.now() - realStart;
  // The run started moments ago: what lies between the shell's reading and this one is start-up time.
  if (!Number.isFinite(realStart) || Math.abs(observed - expected) > 60 * 60 * 1000) {
    throw new Error(
      `The clock was to be shifted by ${offset}, but it reads ${Math.round(observed / dayMs)} days from the real date: libfaketime did not take hold`,
    );
  }
  process.stdout.write(`clock shifted by ${offset}: the tests run on ${new Date().toISOString().slice(0, 10)}\n`);
}
