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
  // Files that mostly wait on the clock start before the rest (test/support/sequencer.mjs says why).
  testSequencer: '<rootDir>/test/support/sequencer.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  setupFiles: ['<rootDir>/test/support/env.ts'],
  testTimeout: 60000,
  // One worker more than the CI machine's two cores: several files spend long stretches waiting (a
  // budget minute running out, pip, npm pack, a CLI in a child process), and a third worker keeps the
  // cores busy meanwhile; a fourth only adds contention (docs/contributing.md has the measured runs).
  maxWorkers: 3,
  // A worker ends holding gigabytes (its files' module registries, the embedded stores' WebAssembly
  // memories), and freeing them at exit outlasts jest's default grace even when nothing is left open:
  // jest then kills the worker and blames leaking tests. The bound is a few times that teardown as
  // measured (docs/contributing.md, "Where the time goes"), so a worker that really hangs is still killed.
  workerGracefulExitTimeout: 3000,
};
