import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '@jest/types';

/**
 * Which documented (operation, status) pairs of openapi/openapi.yaml the suites exercised. Each
 * Jest worker appends the pairs its checked responses met to a file of its own in one directory
 * for the run (made by the global setup); the global teardown reads them all and, when the whole
 * suite ran, fails the run on a documented pair that no suite met, so that a status the
 * document promises is never left untested. A run of some suites only is not judged.
 */
export const coverageDirectoryVariable = 'TEMPMAIL_CONTRACT_COVERAGE_DIR';

/**
 * Pairs no local suite can meet, each with the reason. A pair listed here that a suite does meet
 * fails the run too, so the list cannot go stale.
 */
const serviceMade500 =
  "the service's own 500 needs a failure of an unexpected kind past the authorizer's storage calls; the fault matrix injects storage failures there, which the service answers with 503, and a crashed function is the gateway's 500 (not this response). Met for GET /v1/usage and GET /v1/emails/{email_id}/messages only";

export const unexercisable: Readonly<Record<string, string>> = {
  'POST /v1/emails 500': serviceMade500,
  'GET /v1/emails/{email_id} 500': serviceMade500,
  'GET /v1/messages/{message_id} 500': serviceMade500,
  'GET /v1/messages/{message_id}/source 500': serviceMade500,
  'GET /v1/messages/{message_id}/attachments/{attachment_id} 500': serviceMade500,
  'GET /v1/domains 500': serviceMade500,
};

interface CoverageState {
  directory: string;
  /** Given by the person running the suites: left in place for them to read. */
  kept: boolean;
}
const state = globalThis as typeof globalThis & { tempmailContractCoverage?: CoverageState };

/**
 * Before the suites: the run's directory, named to the workers through the environment. One set
 * beforehand in `TEMPMAIL_CONTRACT_COVERAGE_DIR` is used and kept, so that a run of some suites
 * can list the pairs they met (`cat "$TEMPMAIL_CONTRACT_COVERAGE_DIR"/*.txt | sort -u`).
 */
export function startContractCoverage(): void {
  const given = process.env[coverageDirectoryVariable];
  const directory = given || mkdtempSync(join(tmpdir(), 'tempmail-contract-'));
  process.env[coverageDirectoryVariable] = directory;
  state.tempmailContractCoverage = { directory, kept: Boolean(given) };
}

/** In a worker: one checked response met `method template status`. */
export function recordExercised(method: string, template: string, status: number): void {
  const directory = process.env[coverageDirectoryVariable];
  if (directory) appendFileSync(join(directory, `${process.pid}.txt`), `${method} ${template} ${status}\n`);
}

/** The pairs the run's workers recorded. */
export function exercisedPairs(directory: string): Set<string> {
  return new Set(
    readdirSync(directory)
      .filter((name) => name.endsWith('.txt'))
      .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean)),
  );
}

/**
 * Whether this run is the whole suite: no path or name pattern, no changed-files, related-tests,
 * failures-only or shard selection, and not the separate browser suite.
 */
export function isWholeRun(globalConfig: Config.GlobalConfig): boolean {
  const shard = globalConfig.shard;
  return (
    globalConfig.testPathPatterns.patterns.length === 0 &&
    !globalConfig.testNamePattern &&
    !globalConfig.onlyChanged &&
    !globalConfig.onlyFailures &&
    !globalConfig.findRelatedTests &&
    globalConfig.nonFlagArgs.length === 0 &&
    (shard === undefined || shard.shardCount === 1) &&
    process.env.TEMPMAIL_SUITE !== 'browser'
  );
}

/** The problems of a run's coverage: documented pairs nobody met, and excuses for pairs somebody did. */
export function coverageProblems(documented: readonly string[], exercised: ReadonlySet<string>, excused: Readonly<Record<string, string>> = unexercisable): string[] {
  const missing = documented.filter((pair) => !exercised.has(pair) && !(pair in excused));
  const stale = Object.keys(excused).filter((pair) => exercised.has(pair) || !documented.includes(pair));
  return [
    ...missing.map((pair) => `${pair} is documented, but no suite received it`),
    ...stale.map((pair) => `${pair} is listed as unexercisable in test/support/contract-coverage.ts, but ${documented.includes(pair) ? 'a suite received it' : 'the document does not list it'}`),
  ];
}

/** After the suites: judges the coverage of a whole run, and removes the run's directory. */
export function finishContractCoverage(globalConfig: Config.GlobalConfig, documented: () => string[]): void {
  const coverage = state.tempmailContractCoverage;
  if (!coverage) return;
  try {
    if (!isWholeRun(globalConfig)) return;
    const problems = coverageProblems(documented(), exercisedPairs(coverage.directory));
    if (problems.length > 0) {
      throw new Error(`contract coverage: ${problems.length} problem(s)\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    }
  } finally {
    if (!coverage.kept) {
      rmSync(coverage.directory, { recursive: true, force: true });
      delete process.env[coverageDirectoryVariable];
    }
  }
}
