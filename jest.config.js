const { existsSync } = require('node:fs');
const path = require('node:path');

/**
 * The sanitizer corpus lives beside the project (../shared/corpus), never inside it. A person who
 * clones the project alone has none: that one suite then does not run, and the run says so in one
 * line. Under CI the corpus is always beside the clone, so the suite runs and its absence fails it.
 */
const corpusDir = path.join(__dirname, '..', 'shared', 'corpus', 'xss');
const withoutCorpus = !existsSync(corpusDir) && !process.env.CI;
if (withoutCorpus) {
  process.stdout.write(
    `sanitizer corpus suites (parser and browser) did not run: no corpus at ../shared/corpus/xss beside the project (CI is not set)\n`,
  );
}

/**
 * The browser suites (test/browser: Chromium rendering sanitized mail) run apart, as
 * `npm run test:browser` (TEMPMAIL_SUITE=browser), so that `npm test` stays within its time
 * budget on a 2-core machine; CI and the README's test line run both.
 */
const browserSuite = process.env.TEMPMAIL_SUITE === 'browser';

/**
 * The contract's suites run on both runtimes from one test code: as `npm start` runs (the local
 * project) and as the stack deploys (`npm run start:stack`: every function from its bundle, the API
 * from the template, IAM judged on every call). The second project runs the files below again with
 * TEMPMAIL_TEST_RUNTIME=start:stack (test/support/test-runtime.ts); a test that only one runtime
 * can run says which and why where it is declared.
 */
const contractSuites = [
  'authentication',
  'charging',
  'console-api',
  'domains',
  'emails-create',
  'emails-read',
  'every-operation',
  'inbound-mail',
  'mail-bounds',
  'mail-files',
  'message-listing',
  'mime-corpus',
  'short-window',
  'usage',
];

const transform = {
  // Transpile only (the type check is `npm run typecheck`), with swc: on a cold cache the unit
  // suites took 59 s of processor time where ts-jest took 80. @middy/core ships ES modules only.
  '^.+\\.[tj]s$': [
    '@swc/jest',
    {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    },
  ],
};

/** What both projects share: how files are found and transformed. */
const project = {
  testEnvironment: 'node',
  transform,
  // jose and oidc-provider (the console's token verification, the local issuer) ship ES modules only as well.
  transformIgnorePatterns: ['/node_modules/(?!@middy/|jose/|oidc-provider/)'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...project,
      displayName: browserSuite ? 'browser' : 'npm start',
      roots: browserSuite ? ['<rootDir>/test/browser'] : ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...(browserSuite ? [] : ['/test/browser/']),
        ...(withoutCorpus ? ['/test/unit/mail/sanitize-corpus\\.test\\.ts$', '/test/unit/mail/flatten-html-nesting-corpus\\.test\\.ts$', '/test/browser/sanitized-html-corpus\\.test\\.ts$'] : []),
      ],
      setupFiles: ['<rootDir>/test/support/setup-env.ts'],
    },
    ...(browserSuite
      ? []
      : [
          {
            ...project,
            displayName: 'start:stack',
            roots: ['<rootDir>/test/integration'],
            testMatch: contractSuites.map((name) => `**/${name}.test.ts`),
            // The runtime, and the project's longer watchdog for a test (Jest takes `testTimeout` from
            // the run's configuration only): test/support/on-start-stack.ts.
            setupFiles: ['<rootDir>/test/support/setup-env.ts', '<rootDir>/test/support/on-start-stack.ts'],
          },
        ]),
  ],
  // Once per run: the shifted clock's check (test/support/shifted-clock.sh) and the per-function
  // permission check (docs/permissions.md), on under `npm test` (TEMPMAIL_PERMISSION_CHECK=1).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // The stack's suites wait on one synthesis (test/support/test-sequencer.js): they run after the others.
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  // Most suites wait on their own services' I/O: two workers keep both cores busy.
  maxWorkers: 2,
  testTimeout: 30_000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
