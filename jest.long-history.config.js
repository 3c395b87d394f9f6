/**
 * The long-history part of the reliability battery: one year of daily runs seeded into a fresh database
 * of the PostgreSQL server (files ending in .long-history.ts). `npm run test:reliability` runs it after
 * the battery, on its own: seeding keeps the server busy for minutes, which would eat into the
 * time bounds the battery's fault files check. No global setup: the file makes its own database and
 * budget store.
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/reliability/**/*.long-history.ts'],
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 600000,
  maxWorkers: 1,
};
