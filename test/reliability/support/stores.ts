import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LocalBudgetStore, type LocalStore, startBudgetStore, startStore } from '../../../local/stores.js';
import { scratchDatabase } from '../../support/server-db.js';
import { API_BUNDLE_ENV } from './api-process.js';
import { FIGURES_DIR_ENV, readFigures, summarise } from './figures.js';

/** The machine's PostgreSQL server (trust auth). The battery only ever creates and drops its own databases. */
export const SERVER_URL = process.env.RELIABILITY_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ServerDatabase {
  /** Owner connection string of the new database. */
  adminUrl: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the server, so that the battery never depends on what an earlier run left. */
export async function freshDatabase(prefix: string): Promise<ServerDatabase> {
  const { name, url, drop } = await scratchDatabase(SERVER_URL, prefix);
  return { adminUrl: url, name, drop };
}

/** A fresh database migrated and seeded with the demo (the same path `npm start` takes on a server). */
export async function freshDemoStore(prefix: string): Promise<{ database: ServerDatabase; store: LocalStore }> {
  const database = await freshDatabase(prefix);
  const store = await startStore({ adminUrl: database.adminUrl, seed: true });
  return { database, store };
}

declare global {
  // eslint-disable-next-line no-var
  var __geoReliability: { database: ServerDatabase; budget: LocalBudgetStore; figures: string } | undefined;
}

/**
 * One demo database and one dynalite for the files of the battery that do not break the store
 * (the store-fault file makes its own database, since it locks tables and kills connections).
 * The same environment names as test/support/api.ts reads, so its helpers work unchanged.
 */
/** The files of the property battery; the case total is checked when all of them ran. */
export const PROPERTY_FILES = ['hostile-input', 'classes'] as const;

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The API server bundled as the functions are for Lambda (esbuild, ESM), run by the property files in
 * a process of its own. Written under .local/ (ignored); the handlers find openapi/openapi.json above
 * wherever the bundle is.
 */
async function bundleApiServer(): Promise<string> {
  const outfile = join(REPO, '.local', 'reliability', 'api-server.mjs');
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(REPO, 'test/reliability/support/api-server.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
    external: ['@aws-sdk/client-secrets-manager', 'pg-native'],
    logLevel: 'error',
  });
  return outfile;
}

export async function setup(): Promise<void> {
  const t0 = Date.now();
  const { database, store } = await freshDemoStore('geo_rel');
  const budget = await startBudgetStore();
  const figures = mkdtempSync(join(tmpdir(), 'geo-rel-figures-'));
  globalThis.__geoReliability = { database, budget, figures };
  process.env[FIGURES_DIR_ENV] = figures;
  process.env[API_BUNDLE_ENV] = await bundleApiServer();
  process.env.TEST_READER_URL = store.readerUrl;
  process.env.TEST_ADMIN_URL = database.adminUrl;
  process.env.TEST_STORE_KIND = store.kind;
  process.env.TEST_DYNAMODB_ENDPOINT = budget.endpoint;
  process.env.TEST_MANIFEST = JSON.stringify(store.manifest);
  console.log(`\nreliability stores ready in ${Date.now() - t0} ms (database ${database.name})`);
}

export async function teardown(): Promise<void> {
  const stores = globalThis.__geoReliability;
  await stores?.budget.close();
  await stores?.database.drop();
  if (!stores) return;
  const all = readFigures(stores.figures);
  rmSync(stores.figures, { recursive: true, force: true });
  if (all.length === 0) return;
  const { report, failures } = summarise(all, PROPERTY_FILES);
  console.log(`\n${report}`);
  // Thrown from the global teardown, this fails the run (jest exits non-zero) after every file reported.
  if (failures.length > 0) throw new Error(`reliability battery acceptance failed: ${failures.join('; ')}`);
}
