// The `start:stack` project (jest.config.js): the contract's suites run their service as the stack deploys.
process.env.TEMPMAIL_TEST_RUNTIME = 'start:stack';

/**
 * A request through the stack runs its authorizer and function from their bundles with IAM judged
 * on every AWS call: about three times npm start's cost. A test that spends the contract's 300
 * requests a minute takes 16 s on a quiet machine and more on a shared one; its clock is the
 * functions' frozen clock, so only this watchdog sees the time. Jest reads `testTimeout` from the
 * run's configuration only (a project's is ignored), so the project sets its own here: a file's
 * `jest.setTimeout` applies when its tests start.
 */
jest.setTimeout(120_000);
