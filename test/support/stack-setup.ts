import { type LocalBudgetStore, type LocalStore, startBudgetStore, startStore } from '../../local/stores.js';
import { seedFixtures } from '../fixtures/index.js';

declare global {
  // eslint-disable-next-line no-var
  var __geoStores: { store: LocalStore; budget: LocalBudgetStore } | undefined;
}

/**
 * One measurement store and one DynamoDB-protocol server for the whole run: embedded PGlite by
 * default, the PostgreSQL server named by DATABASE_URL (an owner connection) when set. Each test file
 * then starts its own API process-in-miniature on top (test/support/api.ts).
 */
export default async function globalSetup(): Promise<void> {
  const t0 = Date.now();
  const store = await startStore({ adminUrl: process.env.DATABASE_URL, seed: true, extra: seedFixtures });
  const budget = await startBudgetStore();
  globalThis.__geoStores = { store, budget };
  process.env.TEST_READER_URL = store.readerUrl;
  process.env.TEST_STORE_KIND = store.kind;
  process.env.TEST_DYNAMODB_ENDPOINT = budget.endpoint;
  process.env.TEST_MANIFEST = JSON.stringify(store.manifest);
  console.log(`\nstores ready in ${Date.now() - t0} ms (${store.kind})`);
}
