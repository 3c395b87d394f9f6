/**
 * The reliability and security battery (`npm run test:reliability`), kept apart from `npm test`:
 * it needs the PostgreSQL server on 127.0.0.1:5432 (fresh databases, a TCP proxy in front, admin
 * views such as pg_stat_activity), and its files end in .reliability.ts so the main testMatch skips them.
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/reliability/**/*.reliability.ts'],
  globalSetup: '<rootDir>/test/reliability/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/reliability/support/global-teardown.mjs',
  testTimeout: 120000,
  maxWorkers: 2,
};
