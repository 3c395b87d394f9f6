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
  maxWorkers: 2,
};
