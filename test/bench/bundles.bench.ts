import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { toApiGatewayEvent } from '../../shared/local/adapter.js';
import { LOCAL_CURSOR_SECRET, freshTableName } from '../../shared/local/stack.js';
import { createBudgetTable, startBudgetStore } from '../../shared/local/stores.js';
import { reads as allReads } from '../../shared/reads/registry.js';
import { demoStore, stats, table } from './harness.js';

/**
 * Each Lambda bundled as CDK bundles it (lib/constructs/service-function.ts: ESM, minified, the DynamoDB
 * client bundled), then started by a fresh `node` process that serves one request against the local
 * stack. Yardsticks: an empty handler; the irreducible-dependency handler of issue 13 (pg, the AWS SDK's
 * DynamoDB client and zod imported, a pool and a client built, nothing of ours), without and with the
 * first request's I/O (a statement, an UpdateItem); and the same with the budget client the functions
 * carry instead of the SDK's. Each function runs twice: with source maps enabled at run time
 * (NODE_OPTIONS=--enable-source-maps) and without, to decide whether to enable them.
 */
const run = promisify(execFile);
const OUT = '.local/bundles';
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 9);
const entries: Record<string, { entry: string; method: string; path: string; body?: string }> = {
  empty: { entry: 'test/bench/empty-handler.ts', method: 'GET', path: '/api/v1/me' },
  irreducible: { entry: 'test/bench/irreducible-handler.ts', method: 'GET', path: '/api/v1/me' },
  'irreducible + I/O': { entry: 'test/bench/irreducible-io-handler.ts', method: 'GET', path: '/api/v1/me' },
  'irreducible, own budget client + I/O': { entry: 'test/bench/irreducible-lean-io-handler.ts', method: 'GET', path: '/api/v1/me' },
  identity: { entry: 'functions/identity/handler.ts', method: 'GET', path: '/api/v1/me' },
  figures: { entry: 'functions/figures/handler.ts', method: 'GET', path: '/api/v1/analyses/{collected}/metrics' },
  catalog: { entry: 'functions/catalog/handler.ts', method: 'GET', path: '/api/v1/analyses/{collected}/runs' },
  mcp: { entry: 'functions/mcp/handler.ts', method: 'POST', path: '/api/v1/mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
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
  const env = {
    ...process.env,
    DATABASE_URL: store.readerUrl,
    DYNAMODB_ENDPOINT: budget.endpoint,
    BUDGET_TABLE: tableName,
    CURSOR_SECRET: LOCAL_CURSOR_SECRET,
    PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000 }),
    LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const results: Record<string, Record<'maps' | 'plain', { size: number; samples: Sample[] }>> = {};
  const reads: Record<string, string[]> = {};
  const events: Record<string, string> = {};
  for (const [name, spec] of Object.entries(entries)) {
    const outfile = join(OUT, `${name.replace(/\W+/g, '-')}.mjs`);
    const built = await build({
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
    results[name] = { maps: { size, samples: [] }, plain: { size, samples: [] } };
    events[name] = JSON.stringify(event);
  }
  // Rounds over every function and variant in turn, so drift in the shared machine's load falls on all alike.
  for (let i = 0; i < RUNS; i += 1) {
    for (const name of Object.keys(entries)) {
      for (const variant of ['maps', 'plain'] as const) {
        // Asynchronous on purpose: the embedded stores run in this process and must keep answering.
        const child = await run(process.execPath, [join(OUT, 'probe.mjs'), `./${name.replace(/\W+/g, '-')}.mjs`], {
          env: { ...env, PROBE_EVENT: events[name], NODE_OPTIONS: variant === 'maps' ? '--enable-source-maps' : '' },
          encoding: 'utf8',
        });
        const line = child.stdout.trim().split('\n').pop() ?? '';
        results[name]![variant].samples.push(JSON.parse(line) as Sample);
      }
    }
  }
  await budget.close();
  await store.close();

  const p50 = (name: string, variant: 'maps' | 'plain', k: keyof Sample) => stats(results[name]![variant].samples.map((s) => s[k])).p50;
  const rows = Object.keys(entries).map((name) => {
    const r = results[name]!;
    const status = r.plain.samples.every((s) => s.status === 200) ? 200 : r.plain.samples.find((s) => s.status !== 200)?.status;
    return {
      function: name,
      'bundle KiB': Math.round(r.plain.size / 102.4) / 10,
      'reads bundled': name in { identity: 1, figures: 1, catalog: 1, mcp: 1 } ? reads[name]!.length : '-',
      'import ms': p50(name, 'plain', 'importMs'),
      'first request ms': p50(name, 'plain', 'firstMs'),
      'start to first response ms': p50(name, 'plain', 'startToFirstMs'),
      '÷ irreducible': Math.round((p50(name, 'plain', 'startToFirstMs') / p50('irreducible', 'plain', 'startToFirstMs')) * 100) / 100,
      '÷ irreducible + I/O': Math.round((p50(name, 'plain', 'startToFirstMs') / p50('irreducible + I/O', 'plain', 'startToFirstMs')) * 100) / 100,
      '÷ own-client yardstick': Math.round((p50(name, 'plain', 'startToFirstMs') / p50('irreducible, own budget client + I/O', 'plain', 'startToFirstMs')) * 100) / 100,
      'with source maps ms': p50(name, 'maps', 'startToFirstMs'),
      'maps ÷ irreducible': Math.round((p50(name, 'maps', 'startToFirstMs') / p50('irreducible', 'plain', 'startToFirstMs')) * 100) / 100,
      status: status ?? 200,
    };
  });
  const manifest = JSON.parse(await readFile('package.json', 'utf8')) as { name: string };
  return `${table(rows)}\n\n${RUNS} fresh \`node ${process.version}\` processes per function and variant (${manifest.name}), medians; start to first response = from process start to the first response back (import + first request against the local stack: cold pool, cold budget client); "with source maps" = the same bundle under NODE_OPTIONS=--enable-source-maps.`;
}
