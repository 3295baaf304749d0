/**
 * The environment without libfaketime's variables: a process started with it keeps the real
 * clock when the test run shifts its own (test/support/shifted-clock.sh). For Chromium, which
 * slows to a crawl under libfaketime, and the test runners that drive it.
 */
export function realClockEnvironment(environment: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environment).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[0] !== 'LD_PRELOAD' && !entry[0].startsWith('FAKETIME')),
  );
}
