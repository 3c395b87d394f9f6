import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { noticeNodeVersion } from '../local/node-notice.js';
import { localConfig, startApi } from '../local/stack.js';
import { createBudgetTable, startBudgetStore, startStore } from '../local/stores.js';
import { serveDocs } from '../scripts/openapi/docs-page.js';

/**
 * `npm start`: embedded PostgreSQL (PGlite) and DynamoDB-compatible server (dynalite) in process,
 * migrated and seeded with the demo, behind the same Lambda handlers. DATABASE_URL (an owner
 * connection) switches to a real PostgreSQL; --seed wipes and seeds it. DYNAMODB_ENDPOINT or AWS
 * settings switch the budget to another DynamoDB. The reference page of openapi.json is served at /docs
 * (built from it when missing or stale, in the background).
 */
noticeNodeVersion();
const { values } = parseArgs({ options: { seed: { type: 'boolean', default: false } } });
const port = Number(process.env.PORT ?? 3000);
const adminUrl = process.env.DATABASE_URL;

// Built (when stale) while the store starts: a child process, so it does not hold up the API.
const docs = serveDocs(join(dirname(fileURLToPath(import.meta.url)), '..'));
const store = await startStore({ adminUrl, seed: values.seed || process.env.SEED === '1' });
const budget = process.env.DYNAMODB_ENDPOINT ? undefined : await startBudgetStore();
const table = process.env.BUDGET_TABLE ?? 'geo-budget';
if (budget) await createBudgetTable(budget.endpoint, table);

const api = await startApi(localConfig(store.readerUrl, budget?.endpoint, { BUDGET_TABLE: table }), port, '127.0.0.1', docs.pages);

console.log(`geo measurement API on ${api.baseUrl}  (store: ${store.kind}, budget: ${budget ? 'dynalite' : 'DynamoDB'})`);
if (store.manifest) {
  await mkdir('.local', { recursive: true });
  // owner_url: where `npm run admin` finds the embedded store while this process runs (bin/admin.ts).
  const demo = {
    base_url: api.baseUrl,
    keys: store.manifest.keys,
    analyses: store.manifest.analyses,
    ...(store.ownerUrl ? { owner_url: store.ownerUrl } : {}),
  };
  await writeFile('.local/demo.json', `${JSON.stringify(demo, null, 2)}\n`);
  console.log('demo keys (local only; also in .local/demo.json):');
  for (const [label, secret] of Object.entries(store.manifest.keys)) console.log(`  ${label.padEnd(18)} ${secret}`);
  console.log(`try: curl -H "Authorization: Bearer ${store.manifest.keys.workspace}" ${api.baseUrl}/me`);
}
docs.ready.then(
  (page) =>
    console.log(
      `reference page: ${api.url}/docs (${page.built ? 'built from' : 'up to date with'} openapi/openapi.json; also at /api/v1/docs)`,
    ),
  (err: unknown) => console.error(`the reference page at /docs could not be built: ${err instanceof Error ? err.message : String(err)}`),
);

const stop = async () => {
  docs.close();
  await api.close();
  await budget?.close();
  await store.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
