/** Tests run as native ESM (middy 7 is ESM-only); @swc/jest strips types, tsc checks them. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^#shared/(.*)\\.js$': '<rootDir>/shared/$1', '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testTimeout: 60000,
  // One worker more than the CI machine's two cores: several files spend long stretches waiting (a
  // budget minute running out, pip, npm pack, a CLI in a child process), and a third worker keeps the
  // cores busy meanwhile; a fourth only adds contention (docs/contributing.md has the measured runs).
  maxWorkers: 3,
};
