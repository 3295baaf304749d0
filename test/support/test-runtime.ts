/**
 * Which runtime the contract's suites run their service on: `npm start` (the local project) or
 * the stack as it deploys (`npm run start:stack`, the `start:stack` project of jest.config.js,
 * which sets TEMPMAIL_TEST_RUNTIME). One test code serves both.
 */
export type RuntimeName = 'npm start' | 'start:stack';

export const testRuntime: RuntimeName = process.env.TEMPMAIL_TEST_RUNTIME === 'start:stack' ? 'start:stack' : 'npm start';

/**
 * Tests that only one runtime can run, and why (a fault injected into `npm start`'s storage
 * client, a limit only the stack's gateway enforces): on the other runtime they are declared
 * skipped under the same title, so the run lists them with the reason instead of leaving them out.
 */
export function onlyOn(runtime: RuntimeName, why: string, tests: () => void): void {
  (testRuntime === runtime ? describe : describe.skip)(`on ${runtime} only: ${why}`, tests);
}

/** The value a promise has on each runtime, where AWS and the local intake differ (the test states both and why). */
export const byRuntime = <T>(values: Record<RuntimeName, T>): T => values[testRuntime];

/**
 * How long a suite's `beforeAll` may take to start its service: `npm start`'s starts in about a
 * second; the stack's may first wait for the one synthesis (bundling every function: minutes on a
 * fresh clone, when a run of chosen files needs it first; a whole run starts it at its beginning).
 */
export const serviceStartTimeoutMs = byRuntime({ 'npm start': 30_000, 'start:stack': 600_000 });
