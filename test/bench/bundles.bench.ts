import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { reads as allReads } from '#shared/reads/registry.js';
import { toApiGatewayEvent } from '../../local/adapter.js';
import { SDK_NODE_WARNING_OFF } from '../../local/node-notice.js';
import { freshTableName, LOCAL_CURSOR_SECRET } from '../../local/stack.js';
import { createBudgetTable, startBudgetStore } from '../../local/stores.js';
import { demoStore, stats, table } from './harness.js';
import { startPooler } from './pooler.js';

/**
 * Each Lambda bundled as CDK bundles it (lib/constructs/service-function.ts: ESM, minified), then started
 * by a fresh `node` process that serves one request against the local stack, the store reached through a
 * pooler as the deployed functions reach it through RDS Proxy (pooler.ts). Yardsticks: an empty handler;
 * the irreducible-dependency handler (pg, the AWS SDK's DynamoDB document client, the RDS
 * signer and zod imported, a pool and the clients built, nothing of ours), without and with the first
 * request's I/O (a statement, an UpdateItem); and for the MCP function the latter plus the import of the
 * MCP SDK modules it uses. BENCH_NODES (binaries, comma-separated) runs every process under
 * each Node in turn, rounds alternating; BENCH_COLD_VARIANTS adds `direct` (connected to PostgreSQL
 * itself, a new backend for the process) or `maps` (NODE_OPTIONS=--enable-source-maps) beside `plain`.
 */
const run = promisify(execFile);
const OUT = '.local/bundles';
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 9);
const ALL_VARIANTS = ['plain', 'maps', 'direct'] as const;
type Variant = (typeof ALL_VARIANTS)[number];
const VARIANTS = ALL_VARIANTS.filter((v) => v === 'plain' || (process.env.BENCH_COLD_VARIANTS ?? '').split(',').includes(v));
const NODES = (process.env.BENCH_NODES ?? process.execPath).split(',').filter(Boolean);
const IRREDUCIBLE = 'irreducible + I/O';
const MCP_YARDSTICK = 'irreducible + I/O + MCP SDK import';
const entries: Record<string, { entry: string; method: string; path: string; body?: string }> = {
  empty: { entry: 'test/bench/empty-handler.ts', method: 'GET', path: '/api/v1/me' },
  irreducible: { entry: 'test/bench/irreducible-handler.ts', method: 'GET', path: '/api/v1/me' },
  [IRREDUCIBLE]: { entry: 'test/bench/irreducible-io-handler.ts', method: 'GET', path: '/api/v1/me' },
  [MCP_YARDSTICK]: { entry: 'test/bench/irreducible-mcp-handler.ts', method: 'GET', path: '/api/v1/me' },
  identity: { entry: 'functions/identity/handler.ts', method: 'GET', path: '/api/v1/me' },
  figures: { entry: 'functions/figures/handler.ts', method: 'GET', path: '/api/v1/analyses/{collected}/metrics' },
  catalog: { entry: 'functions/catalog/handler.ts', method: 'GET', path: '/api/v1/analyses/{collected}/runs' },
  mcp: {
    entry: 'functions/mcp/handler.ts',
    method: 'POST',
    path: '/api/v1/mcp',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  },
  // The first tools/call of a cold process: the tool's input contract, the read, its result.
  'mcp, first tools/call get_me': {
    entry: 'functions/mcp/handler.ts',
    method: 'POST',
    path: '/api/v1/mcp',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_me', arguments: {} } }),
  },
  'mcp, first tools/call get_metrics 30d': {
    entry: 'functions/mcp/handler.ts',
    method: 'POST',
    path: '/api/v1/mcp',
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_metrics', arguments: { analysis: '{collected}', window: '30d' } },
    }),
  },
  openapi: { entry: 'functions/openapi/handler.ts', method: 'GET', path: '/api/v1/openapi.json' },
};

/**
 * BENCH_COLD_EXTRA adds entries to set beside the functions, e.g. a copy of the tree as it was before a
 * change: `name=path/to/handler.ts@mcp;...`, each sending the request of the function named after `@`.
 */
for (const extra of (process.env.BENCH_COLD_EXTRA ?? '').split(';').filter(Boolean)) {
  const [name, rest] = extra.split('=');
  const [entry, like] = (rest ?? '').split('@');
  const spec = like === undefined ? undefined : entries[like];
  if (!name || !entry || !spec) throw new Error(`BENCH_COLD_EXTRA: "${extra}" is not name=entry.ts@function`);
  entries[name] = { ...spec, entry };
}

/** Start to first response = performance.now() when the first response is back (its origin is the process start). */
const PROBE = `
const t0 = performance.now();
const mod = await import(process.argv[2]);
const t1 = performance.now();
const res = await mod.handler(JSON.parse(process.env.PROBE_EVENT), { awsRequestId: 'probe', getRemainingTimeInMillis: () => 10000 });
const t2 = performance.now();
const cpu = process.cpuUsage();
// An MCP tool that answered an error is not a served call: its status reads as the error's.
const status = res.statusCode === 200 && /"isError":\\s*true/.test(String(res.body)) ? 'tool error' : res.statusCode;
console.log(JSON.stringify({ bootMs: t0, importMs: t1 - t0, firstMs: t2 - t1, startToFirstMs: t2, cpuMs: (cpu.user + cpu.system) / 1000, status }));
process.exit(0);
`;

interface Sample {
  bootMs: number;
  importMs: number;
  firstMs: number;
  startToFirstMs: number;
  /** CPU of the process (user + system, all threads) until the first response: less sensitive to a busy machine. */
  cpuMs: number;
  status: number | string;
}

type Timing = Exclude<keyof Sample, 'status'>;

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
    ...SDK_NODE_WARNING_OFF,
  };
  // pooled: through the pooler, as the deployed functions reach the store through RDS Proxy (which sets
  // statement_timeout itself); direct: a connection, hence a new backend, of the process's own.
  const envs = {
    pooled: { ...common, DATABASE_URL: pooler.through(store.readerUrl), DB_SEND_STATEMENT_TIMEOUT: 'false' },
    direct: { ...common, DATABASE_URL: store.readerUrl },
  };
  const results: Record<string, Record<Variant, Sample[]>> = {};
  const sizes: Record<string, number> = {};
  const reads: Record<string, string[]> = {};
  const events: Record<string, string> = {};
  const versions: Record<string, string> = {};
  for (const node of NODES) versions[node] = (await run(node, ['--version'], { encoding: 'utf8' })).stdout.trim();
  const at = (node: string, name: string) => `${node}\0${name}`;
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
      // As CDK ships it: Powertools' tracer is a file of its own, never read where tracing is off.
      external: ['@aws-sdk/client-secrets-manager', 'pg-native', '@aws-lambda-powertools/tracer'],
      logLevel: 'error',
    });
    sizes[name] = (await stat(outfile)).size;
    // A read is in a bundle when its name is: minified code keeps string literals.
    const text = await readFile(outfile, 'utf8');
    reads[name] = allReads.map((r) => r.name).filter((n) => text.includes(`"${n}"`));
    const path = spec.path.replace('{collected}', store.manifest!.analyses.collected);
    const { event } = toApiGatewayEvent({
      method: spec.method,
      url: path,
      rawHeaders: ['authorization', `Bearer ${key}`, 'content-type', 'application/json', 'accept', 'application/json, text/event-stream'],
      body: (spec.body ?? '').replace('{collected}', store.manifest!.analyses.collected),
    });
    for (const node of NODES) results[at(node, name)] = { plain: [], maps: [], direct: [] };
    events[name] = JSON.stringify(event);
  }
  const probe = async (node: string, name: string, variant: Variant): Promise<Sample> => {
    // Asynchronous on purpose: the embedded budget store runs in this process and must keep answering.
    const child = await run(node, [join(OUT, 'probe.mjs'), `./${name.replace(/\W+/g, '-')}.mjs`], {
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
  for (let i = 0; i < 2; i += 1) for (const name of Object.keys(entries)) await probe(NODES[0] ?? process.execPath, name, 'plain');
  // Rounds over every Node, function and variant in turn, so drift in the shared machine's load falls on all alike.
  for (let i = 0; i < RUNS; i += 1) {
    for (const node of NODES) {
      for (const name of Object.keys(entries)) {
        for (const variant of VARIANTS) results[at(node, name)]?.[variant].push(await probe(node, name, variant));
      }
    }
  }
  await pooler.stop();
  await budget.close();
  await store.close();

  const p50 = (node: string, name: string, variant: Variant, k: Timing) =>
    stats((results[at(node, name)]?.[variant] ?? []).map((s) => s[k])).p50;
  const ratio = (node: string, name: string, yardstick: string, k: Timing = 'startToFirstMs') =>
    Math.round((p50(node, name, 'plain', k) / p50(node, yardstick, 'plain', k)) * 100) / 100;
  const tables = NODES.map((node) => {
    const rows = Object.keys(entries).map((name) => {
      const r = results[at(node, name)];
      const bad = VARIANTS.flatMap((v) => r?.[v] ?? []).find((s) => s.status !== 200);
      return {
        function: name,
        'bundle KiB': Math.round((sizes[name] ?? 0) / 102.4) / 10,
        // The OpenAPI function bundles the document, which names every read without serving any.
        reads: entries[name]?.entry.endsWith('openapi/handler.ts') ? '-' : reads[name]?.length || '-',
        'import ms': p50(node, name, 'plain', 'importMs'),
        'first request ms': p50(node, name, 'plain', 'firstMs'),
        'start to first response ms': p50(node, name, 'plain', 'startToFirstMs'),
        'CPU ms': p50(node, name, 'plain', 'cpuMs'),
        '÷ irreducible + I/O': ratio(node, name, IRREDUCIBLE),
        '÷ irreducible + I/O + MCP SDK import': ratio(node, name, MCP_YARDSTICK),
        'CPU ÷ irreducible + I/O': ratio(node, name, IRREDUCIBLE, 'cpuMs'),
        ...(VARIANTS.includes('maps') ? { 'with source maps ms': p50(node, name, 'maps', 'startToFirstMs') } : {}),
        ...(VARIANTS.includes('direct') ? { 'direct, new backend ms': p50(node, name, 'direct', 'startToFirstMs') } : {}),
        status: bad?.status ?? 200,
      };
    });
    return `### Node ${versions[node]}\n\n${table(rows)}`;
  });
  const manifest = JSON.parse(await readFile('package.json', 'utf8')) as { name: string };
  return `${tables.join('\n\n')}\n\n${RUNS} fresh \`node\` processes per Node, function and variant (${manifest.name}), rounds alternating, medians; start to first response = from process start to the first response back (import, then the first request: a cold pool and budget client of the process's own); CPU = the process's user + system time until then. The store is reached through PgBouncer in transaction mode, as the functions reach it through RDS Proxy: a server connection earlier processes warmed. "with source maps" = the same under NODE_OPTIONS=--enable-source-maps; "direct, new backend" = connected to PostgreSQL itself, so the first request also pays a new backend's catalog loads and first plans.`;
}
