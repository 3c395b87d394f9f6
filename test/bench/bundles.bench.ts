import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { reads as allReads } from '#shared/reads/registry.js';
import { toApiGatewayEvent } from '../harness/adapter.js';
import { freshTableName, LOCAL_CURSOR_SECRET } from '../harness/stack.js';
import { createBudgetTable, startBudgetStore } from '../harness/stores.js';
import { demoStore, stats, table } from './harness.js';
import { startPooler } from './pooler.js';

/**
 * Each Lambda bundled as CDK bundles it (lib/constructs/service-function.ts: ESM, minified), then started
 * by a fresh `node` process that serves one request against the local stack, the store reached through a
 * pooler as the deployed functions reach it through RDS Proxy (pooler.ts). Yardsticks: an empty handler;
 * the irreducible-dependency handler of issue 13 (pg, the AWS SDK's DynamoDB client and zod imported, a
 * pool and a client built, nothing of ours), without and with the first request's I/O (a statement, an
 * UpdateItem); and the same with the budget client the functions carry instead of the SDK's. Each
 * function also runs with source maps enabled at run time (NODE_OPTIONS=--enable-source-maps), to decide
 * whether to enable them, and connected to PostgreSQL directly (a new backend for the process).
 */
const run = promisify(execFile);
const OUT = '.local/bundles';
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 9);
const VARIANTS = ['plain', 'maps', 'direct'] as const;
type Variant = (typeof VARIANTS)[number];
const entries: Record<string, { entry: string; method: string; path: string; body?: string }> = {
  empty: { entry: 'test/bench/empty-handler.ts', method: 'GET', path: '/api/v1/me' },
  irreducible: { entry: 'test/bench/irreducible-handler.ts', method: 'GET', path: '/api/v1/me' },
  'irreducible + I/O': { entry: 'test/bench/irreducible-io-handler.ts', method: 'GET', path: '/api/v1/me' },
  'irreducible, own budget client + I/O': { entry: 'test/bench/irreducible-lean-io-handler.ts', method: 'GET', path: '/api/v1/me' },
  identity: { entry: 'functions/identity/handler.ts', method: 'GET', path: '/api/v1/me' },
  figures: { entry: 'functions/figures/handler.ts', method: 'GET', path: '/api/v1/analyses/{collected}/metrics' },
  catalog: { entry: 'functions/catalog/handler.ts', method: 'GET', path: '/api/v1/analyses/{collected}/runs' },
  mcp: {
    entry: 'functions/mcp/handler.ts',
    method: 'POST',
    path: '/api/v1/mcp',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  },
  openapi: { entry: 'functions/openapi/handler.ts', method: 'GET', path: '/api/v1/openapi.json' },
};

/** Start to first response = performance.now() when the first response is back (its origin is the process start). */
const PROBE = `
const t0 = performance.now();
const mod = await import(process.argv[2]);
const t1 = performance.now();
const res = await mod.handler(JSON.parse(process.env.PROBE_EVENT), { awsRequestId: 'probe', getRemainingTimeInMillis: () => 10000 });
const t2 = performance.now();
console.log(JSON.stringify({ bootMs: t0, importMs: t1 - t0, firstMs: t2 - t1, startToFirstMs: t2, status: res.statusCode }));
process.exit(0);
`;

interface Sample {
  bootMs: number;
  importMs: number;
  firstMs: number;
  startToFirstMs: number;
  status: number;
}

export default async function bundles(): Promise<string> {
  await mkdir(OUT, { recursive: true });
  await writeFile(join(OUT, 'probe.mjs'), PROBE);
  // The real PostgreSQL server, as deployed functions meet one: a first call there costs what it would on
  // Aurora (connection, first plan of each function), not what the embedded WebAssembly build costs.
  const store = await demoStore('server');
  const budget = await startBudgetStore();
  const tableName = freshTableName();
  await createBudgetTable(budget.endpoint, tableName);
  const key = store.manifest!.keys.workspace;
  const pooler = await startPooler(new URL(store.readerUrl));
  const common = {
    ...process.env,
    DYNAMODB_ENDPOINT: budget.endpoint,
    BUDGET_TABLE: tableName,
    CURSOR_SECRET: LOCAL_CURSOR_SECRET,
    PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000 }),
    LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  // pooled: through the pooler, as the deployed functions reach the store through RDS Proxy (which sets
  // statement_timeout itself); direct: a connection, hence a new backend, of the process's own.
  const envs = {
    pooled: { ...common, DATABASE_URL: pooler.through(store.readerUrl), DB_SEND_STATEMENT_TIMEOUT: 'false' },
    direct: { ...common, DATABASE_URL: store.readerUrl },
  };
  const results: Record<string, Record<Variant, { size: number; samples: Sample[] }>> = {};
  const reads: Record<string, string[]> = {};
  const events: Record<string, string> = {};
  for (const [name, spec] of Object.entries(entries)) {
    const outfile = join(OUT, `${name.replace(/\W+/g, '-')}.mjs`);
    await build({
      entryPoints: [spec.entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: true,
      sourcemap: true,
      metafile: true,
      mainFields: ['module', 'main'],
      banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
      external: ['@aws-sdk/client-secrets-manager', 'pg-native'],
      logLevel: 'error',
    });
    const size = (await stat(outfile)).size;
    // A read is in a bundle when its name is: minified code keeps string literals.
    const text = await readFile(outfile, 'utf8');
    reads[name] = allReads.map((r) => r.name).filter((n) => text.includes(`"${n}"`));
    const path = spec.path.replace('{collected}', store.manifest!.analyses.collected);
    const { event } = toApiGatewayEvent({
      method: spec.method,
      url: path,
      rawHeaders: ['authorization', `Bearer ${key}`, 'content-type', 'application/json', 'accept', 'application/json, text/event-stream'],
      body: spec.body ?? '',
    });
    results[name] = { plain: { size, samples: [] }, maps: { size, samples: [] }, direct: { size, samples: [] } };
    events[name] = JSON.stringify(event);
  }
  const probe = async (name: string, variant: Variant): Promise<Sample> => {
    // Asynchronous on purpose: the embedded budget store runs in this process and must keep answering.
    const child = await run(process.execPath, [join(OUT, 'probe.mjs'), `./${name.replace(/\W+/g, '-')}.mjs`], {
      env: {
        ...(variant === 'direct' ? envs.direct : envs.pooled),
        PROBE_EVENT: events[name],
        NODE_OPTIONS: variant === 'maps' ? '--enable-source-maps' : '',
      },
      encoding: 'utf8',
    });
    return JSON.parse(child.stdout.trim().split('\n').pop() ?? '') as Sample;
  };
  // The pooler's server connections warmed once by every function, as a deployed proxy's are by traffic.
  for (let i = 0; i < 2; i += 1) for (const name of Object.keys(entries)) await probe(name, 'plain');
  // Rounds over every function and variant in turn, so drift in the shared machine's load falls on all alike.
  for (let i = 0; i < RUNS; i += 1) {
    for (const name of Object.keys(entries)) {
      for (const variant of VARIANTS) results[name]![variant].samples.push(await probe(name, variant));
    }
  }
  await pooler.stop();
  await budget.close();
  await store.close();

  const p50 = (name: string, variant: Variant, k: keyof Sample) => stats(results[name]![variant].samples.map((s) => s[k])).p50;
  const ratio = (name: string, variant: Variant, yardstick: string) =>
    Math.round((p50(name, variant, 'startToFirstMs') / p50(yardstick, 'plain', 'startToFirstMs')) * 100) / 100;
  const rows = Object.keys(entries).map((name) => {
    const r = results[name]!;
    const bad = VARIANTS.flatMap((v) => r[v].samples).find((s) => s.status !== 200);
    return {
      function: name,
      'bundle KiB': Math.round(r.plain.size / 102.4) / 10,
      reads: name in { identity: 1, figures: 1, catalog: 1, mcp: 1 } ? reads[name]!.length : '-',
      'import ms': p50(name, 'plain', 'importMs'),
      'first request ms': p50(name, 'plain', 'firstMs'),
      'start to first response ms': p50(name, 'plain', 'startToFirstMs'),
      '÷ irreducible (no I/O)': ratio(name, 'plain', 'irreducible'),
      '÷ irreducible + I/O': ratio(name, 'plain', 'irreducible + I/O'),
      '÷ own-client yardstick': ratio(name, 'plain', 'irreducible, own budget client + I/O'),
      'with source maps ms': p50(name, 'maps', 'startToFirstMs'),
      'maps ÷ own-client yardstick': ratio(name, 'maps', 'irreducible, own budget client + I/O'),
      'direct, new backend ms': p50(name, 'direct', 'startToFirstMs'),
      status: bad?.status ?? 200,
    };
  });
  const manifest = JSON.parse(await readFile('package.json', 'utf8')) as { name: string };
  return `${table(rows)}\n\n${RUNS} fresh \`node ${process.version}\` processes per function and variant (${manifest.name}), medians; start to first response = from process start to the first response back (import, then the first request: a cold pool and budget client of the process's own). The store is reached through PgBouncer in transaction mode, as the functions reach it through RDS Proxy: a server connection earlier processes warmed. "with source maps" = the same under NODE_OPTIONS=--enable-source-maps; "direct, new backend" = connected to PostgreSQL itself, so the first request also pays a new backend's catalog loads and first plans.`;
}
