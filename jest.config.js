/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Transpile only (the type check is `npm run typecheck`); @middy/core ships ES modules only.
    '^.+\\.[tj]s$': [
      'ts-jest',
      {
        tsconfig: { allowJs: true, module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, isolatedModules: true },
        diagnostics: false,
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  testTimeout: 30_000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
