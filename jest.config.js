/**
 * One jest project per kind of test, so `npm test -- --selectProjects unit` runs the fast
 * ones. Integration and e2e tests share emulators started once per run by global setup.
 */
const transform = { '^.+\\.ts$': ['ts-jest', { diagnostics: { warnOnly: false } }] };
const common = {
  rootDir: __dirname,
  transform,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  setupFiles: ['<rootDir>/test/helpers/quiet-logs.ts'],
  // `npm run synth` writes bundled copies of the project there (each asset has a package.json).
  modulePathIgnorePatterns: ['<rootDir>/cdk.out/'],
};

module.exports = {
  testTimeout: 30_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/emulators-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/emulators-teardown.ts',
    },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    { ...common, displayName: 'cdk', testMatch: ['<rootDir>/test/cdk/**/*.test.ts'] },
  ],
};
