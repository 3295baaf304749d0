import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the run's temporary folder is named for global teardown (and any process that wants it). */
const variable = 'TEMPMAIL_RUN_SCRATCH';

/**
 * One temporary folder for a whole Jest run, made the system's temporary folder (TMPDIR) before any
 * worker starts, so that whatever the suites and the code under them put there (the apps the suites
 * synthesize, services without a data directory, packed clients, virtual environments, browser
 * profiles) goes with the run. Runs used to leave it behind: on one machine, 1,528 synthesized
 * apps (18 GB) and 2,142 blob folders (14 GB).
 */
export function startRunScratch(): void {
  const folder = mkdtempSync(join(tmpdir(), 'tempmail-test-run-'));
  process.env[variable] = folder;
  process.env.TMPDIR = folder;
}

/** Removes the run's temporary folder, at the end of global teardown. */
export function removeRunScratch(): void {
  const folder = process.env[variable];
  if (folder) rmSync(folder, { recursive: true, force: true });
}
