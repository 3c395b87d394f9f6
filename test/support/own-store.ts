import { readFile } from 'node:fs/promises';
import { type DemoManifest, seedDemo } from '#shared/admin/demo.js';
import type { Queryable } from '#shared/store/queryable.js';
import { freshStore, loadedStore, type Store } from '../../local/pglite.js';
import { freshTableName, type LocalApi, startApi } from '../../local/stack.js';
import { createBudgetTable, type LocalStore, startStore } from '../../local/stores.js';
import { dynamoEndpoint, manifest, testConfig } from './api.js';
import { scratchDatabase } from './server-db.js';

/** The run's dump of its seeded embedded store (stack-setup.ts), if it made one. */
async function demoDump(): Promise<Blob | undefined> {
  const file = process.env.TEST_DEMO_SNAPSHOT;
  return file ? new Blob([await readFile(file)]) : undefined;
}

/**
 * An in-process PostgreSQL of one test file's own holding the demo as `seedDemo` writes it with today's
 * end date: loaded from the run's dump where there is one, seeded afresh otherwise.
 */
export async function seededStore(): Promise<{ store: Store; manifest: DemoManifest }> {
  const data = await demoDump();
  if (data) return { store: await loadedStore(data), manifest };
  const store = await freshStore();
  return { store, manifest: await seedDemo(store.db) };
}

/**
 * An embedded store of one test file's own holding the demo and `extra`: started from the dump the run's
 * global setup made of its seeded store (stack-setup.ts) where there is one, so the file does not seed
 * the demo again; seeded afresh otherwise (a run on the PostgreSQL server makes no dump).
 */
export async function startOwnEmbeddedStore(extra?: (db: Queryable) => Promise<void>): Promise<LocalStore> {
  const data = await demoDump();
  const from = data ? { data, manifest } : undefined;
  return startStore({ ...(from ? { from } : {}), ...(extra ? { extra } : {}) });
}

/**
 * A store of one test file's own, for data the shared demo must not see (hostile or maximal answers): the
 * same kind of store as the run's (stack-setup.ts), so a file that needs its own data still runs on the
 * PostgreSQL server when DATABASE_URL is set. Embedded PGlite by default; on the server, a fresh database
 * beside the shared one, copied from the run's template of the seeded demo (seeded afresh without one),
 * dropped by close(). `extra` writes with the owner role before the service role takes over.
 */
export async function startOwnStore(prefix: string, extra?: (db: Queryable) => Promise<void>): Promise<LocalStore> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return startOwnEmbeddedStore(extra);
  const template = process.env.TEST_DEMO_TEMPLATE;
  const { url, drop } = await scratchDatabase(serverUrl, prefix, template);
  try {
    const store = await startStore({ adminUrl: url, seed: !template, ...(extra ? { extra } : {}) });
    return { ...store, manifest: store.manifest ?? manifest, close: drop };
  } catch (err) {
    await drop();
    throw err;
  }
}

/**
 * A store of one test file's own (startOwnStore) with `extra` written into it, and an API on it with a
 * budget table of its own; the key is the demo's workspace key.
 */
export async function startOwnApi(
  prefix: string,
  extra: (db: Queryable) => Promise<void>,
): Promise<{ store: LocalStore; api: LocalApi; key: string }> {
  const store = await startOwnStore(prefix, extra);
  const table = freshTableName();
  await createBudgetTable(dynamoEndpoint(), table);
  const api = await startApi(testConfig(store.readerUrl, { BUDGET_TABLE: table }));
  return { store, api, key: (store.manifest ?? manifest).keys.workspace };
}
