import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalBudgetStore, type LocalStore, startBudgetStore, startStore } from '../../local/stores.js';
import { seedFixtures } from '../fixtures/index.js';
import { onServer, withClient } from './server-db.js';

declare global {
  // eslint-disable-next-line no-var
  var __geoStores: { store: LocalStore; budget: LocalBudgetStore; snapshotDir?: string; template?: string } | undefined;
}

/**
 * One measurement store and one DynamoDB-protocol server for the whole run: embedded PGlite by
 * default, the PostgreSQL server named by DATABASE_URL (an owner connection) when set. Each test file
 * then starts its own API process-in-miniature on top (test/support/api.ts).
 *
 * The demo as seeded, before the fixtures, is kept for the files that start a store of their own
 * (test/support/own-store.ts), so that none seeds it again: embedded, PGlite's dump in a file (the
 * workers are other processes); on the server, a template database beside the run's.
 */
export default async function globalSetup(): Promise<void> {
  const t0 = Date.now();
  const serverUrl = process.env.DATABASE_URL;
  const store = serverUrl
    ? await startStore({ adminUrl: serverUrl, seed: true })
    : await startStore({ seed: true, extra: seedFixtures, snapshot: true });
  const budget = await startBudgetStore();
  globalThis.__geoStores = { store, budget };
  if (store.snapshot) {
    const dir = await mkdtemp(join(tmpdir(), 'geo-test-demo-'));
    const file = join(dir, 'demo.tar');
    await writeFile(file, Buffer.from(await store.snapshot.data.arrayBuffer()));
    delete store.snapshot;
    globalThis.__geoStores.snapshotDir = dir;
    process.env.TEST_DEMO_SNAPSHOT = file;
  }
  if (serverUrl) {
    const database = new URL(serverUrl).pathname.slice(1);
    const template = `${database}_demo`;
    await onServer(serverUrl, `DROP DATABASE IF EXISTS ${template}`);
    await onServer(serverUrl, `CREATE DATABASE ${template} TEMPLATE ${database}`);
    globalThis.__geoStores.template = template;
    process.env.TEST_DEMO_TEMPLATE = template;
    await withClient(serverUrl, seedFixtures);
  }
  process.env.TEST_READER_URL = store.readerUrl;
  process.env.TEST_STORE_KIND = store.kind;
  process.env.TEST_DYNAMODB_ENDPOINT = budget.endpoint;
  process.env.TEST_MANIFEST = JSON.stringify(store.manifest);
  console.log(`\nstores ready in ${Date.now() - t0} ms (${store.kind})`);
}
