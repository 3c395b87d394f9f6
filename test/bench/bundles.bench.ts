import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import { toApiGatewayEvent } from '../../shared/local/adapter.js';
import { LOCAL_CURSOR_SECRET, freshTableName } from '../../shared/local/stack.js';
import { createBudgetTable, startBudgetStore, startStore } from '../../shared/local/stores.js';
import { stats, table } from './harness.js';

/**
 * Each Lambda bundled as CDK bundles it (lib/constructs/service-function.ts: ESM, minified, source
 * maps, the DynamoDB client bundled), then imported by a fresh `node` process that serves one request
 * against the local stack. An empty handler bundled the same way is the yardstick.
 */
const run = promisify(execFile);
const OUT = '.local/bundles';
const RUNS = 7;
const entries: Record<string, { entry: string; method: string; path: string; body?: string }> = {
  empty: { entry: 'test/bench/empty-handler.ts', method: 'GET', path: '/api/v1/me' },
  identity: { entry: 'functions/identity/handler.ts', method: 'GET', path: '/api/v1/me' },
  figures: { entry: 'functions/figures/handler.ts', method: 'GET', path: '/api/v1/analyses/{collected}/metrics' },
  catalog: { entry: 'functions/catalog/handler.ts', method: 'GET', path: '/api/v1/analyses/{collected}/runs' },
  mcp: { entry: 'functions/mcp/handler.ts', method: 'POST', path: '/api/v1/mcp', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
  openapi: { entry: 'functions/openapi/handler.ts', method: 'GET', path: '/api/v1/openapi.json' },
};

const PROBE = `
const t0 = performance.now();
const mod = await import(process.argv[2]);
const t1 = performance.now();
const res = await mod.handler(JSON.parse(process.env.PROBE_EVENT), { awsRequestId: 'probe', getRemainingTimeInMillis: () => 10000 });
const t2 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, status: res.statusCode }));
process.exit(0);
`;

export default async function bundles(): Promise<string> {
  await mkdir(OUT, { recursive: true });
  await writeFile(join(OUT, 'probe.mjs'), PROBE);
  const store = await startStore({});
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
  const rows: Array<Record<string, string | number>> = [];
  let emptyImport = 0;
  let emptyWall = 0;
  for (const [name, spec] of Object.entries(entries)) {
    const outfile = join(OUT, `${name}.mjs`);
    await build({
      entryPoints: [spec.entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: true,
      sourcemap: true,
      mainFields: ['module', 'main'],
      banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
      external: ['@aws-sdk/client-secrets-manager', 'pg-native'],
      logLevel: 'error',
    });
    const size = (await stat(outfile)).size;
    const path = spec.path.replace('{collected}', store.manifest!.analyses.collected);
    const { event } = toApiGatewayEvent({
      method: spec.method,
      url: path,
      rawHeaders: ['authorization', `Bearer ${key}`, 'content-type', 'application/json', 'accept', 'application/json, text/event-stream'],
      body: spec.body ?? '',
    });
    const imports: number[] = [];
    const walls: number[] = [];
    const firsts: number[] = [];
    let status = 0;
    for (let i = 0; i < RUNS; i += 1) {
      // Asynchronous on purpose: the embedded stores run in this process and must keep answering.
      const started = performance.now();
      const child = await run(process.execPath, [join(OUT, 'probe.mjs'), `./${name}.mjs`], {
        env: { ...env, PROBE_EVENT: JSON.stringify(event) },
        encoding: 'utf8',
      });
      walls.push(performance.now() - started);
      const line = child.stdout.trim().split('\n').pop() ?? '';
      const out = JSON.parse(line) as { importMs: number; firstMs: number; status: number };
      imports.push(out.importMs);
      firsts.push(out.firstMs);
      status = out.status;
    }
    const imp = stats(imports).p50;
    const wall = stats(walls).p50;
    if (name === 'empty') {
      emptyImport = imp;
      emptyWall = wall;
    }
    rows.push({
      function: name,
      'bundle KiB (minified)': Math.round(size / 102.4) / 10,
      '≤ 1 MiB': size <= 1024 * 1024 ? 'yes' : 'NO',
      'import p50 ms': imp,
      'import / empty': name === 'empty' ? 1 : Math.round((imp / emptyImport) * 100) / 100,
      'first request p50 ms': stats(firsts).p50,
      'whole process p50 ms': wall,
      'process / empty': name === 'empty' ? 1 : Math.round((wall / emptyWall) * 100) / 100,
      status,
    });
  }
  await budget.close();
  await store.close();
  return `${table(rows)}\n\n${RUNS} fresh \`node ${process.version}\` processes per function; import = \`await import(bundle)\`, first request = one call against the local stack (cold pool, cold budget client); whole process = spawn to exit of that node process.`;
}
