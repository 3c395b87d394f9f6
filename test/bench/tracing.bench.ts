import { execFile } from 'node:child_process';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { SDK_NODE_WARNING_OFF } from '../../local/node-notice.js';
import { stats, table } from './harness.js';

/**
 * What X-Ray tracing costs a cold start (shared/store/trace.ts, docs/operating.md#tracing). Off: each
 * function bundled as CDK bundles it (lib/constructs/service-function.ts: Powertools' tracer left out of
 * the bundle and bundled on its own under node_modules/ beside it), once as it is and once with trace.ts
 * replaced by a pass-through, each bundle imported by a fresh `node` process with tracing off, the two
 * alternating; the difference is what the tracing code costs a function that never loads the tracer.
 * On: a bundle of trace.ts alone beside the same tracer file, in a fresh process that looks like Lambda
 * with active tracing, timing its first span (which imports the tracer and aws-xray-sdk-core and sends
 * the span) and its second. BENCH_TRACING_RUNS processes each (default 15).
 */
const run = promisify(execFile);
const OUT = '.local/tracing';
const RUNS = Number(process.env.BENCH_TRACING_RUNS ?? 15);
const FUNCTIONS = ['identity', 'figures', 'catalog', 'mcp'] as const;
const TRACE_MODULE = resolve('shared/store/trace.ts');
const TRACER = '@aws-lambda-powertools/tracer';
const BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** trace.ts as a pass-through: what a function would be with no tracing code at all. */
const passThrough: Plugin = {
  name: 'trace-pass-through',
  setup(b) {
    b.onLoad({ filter: /shared[\\/]store[\\/]trace\.ts$/ }, () => ({
      contents:
        'export const span = (_name, work) => work();\nexport const tracedDb = (db) => db;\nexport const tracerLoaded = () => false;\n',
      loader: 'js',
    }));
  },
};

const IMPORT_PROBE = `
const c0 = process.cpuUsage();
const t0 = performance.now();
await import(process.argv[2]);
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
console.log(JSON.stringify({ ms: t1 - t0, cpuMs: (c1.user + c1.system) / 1000 }));
process.exit(0);
`;

const SPAN_ENTRY = `import { span, tracerLoaded } from ${JSON.stringify(TRACE_MODULE)};
export { span, tracerLoaded };
`;

const SPAN_PROBE = `
const mod = await import(process.argv[2]);
const time = async () => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await mod.span('caller', async () => undefined);
  const c1 = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c1.user + c1.system) / 1000 };
};
const first = await time();
const second = await time();
if (!mod.tracerLoaded()) throw new Error('the tracer did not load: the probe is not traced');
console.log(JSON.stringify({ first, second }));
process.exit(0);
`;

async function bundle(entry: string, outfile: string, plugins: Plugin[] = [], external = [TRACER]): Promise<number> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    mainFields: ['module', 'main'],
    banner: { js: BANNER },
    external: ['@aws-sdk/client-secrets-manager', 'pg-native', ...external],
    plugins,
    logLevel: 'error',
  });
  return (await stat(outfile)).size;
}

interface Timed {
  ms: number;
  cpuMs: number;
}

export default async function tracing(): Promise<string> {
  await mkdir(OUT, { recursive: true });
  await writeFile(join(OUT, 'import-probe.mjs'), IMPORT_PROBE);
  await writeFile(join(OUT, 'span-probe.mjs'), SPAN_PROBE);
  await writeFile(join(OUT, 'span-entry.ts'), SPAN_ENTRY);
  // The tracer where the function's dynamic import finds it, as CDK ships it.
  const tracerDir = join(OUT, 'node_modules', TRACER);
  await mkdir(tracerDir, { recursive: true });
  const tracerSize = await bundle(`node_modules/${TRACER}/lib/esm/index.js`, join(tracerDir, 'index.mjs'), [], []);
  await writeFile(join(tracerDir, 'package.json'), JSON.stringify({ name: TRACER, type: 'module', exports: './index.mjs' }));
  // A keyed function's configuration, enough for its module to load; nothing is connected at import.
  const offEnv = {
    ...process.env,
    DATABASE_URL: 'postgres://reader@127.0.0.1:1/geo',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
    BUDGET_TABLE: 'bench',
    CURSOR_SECRET: 'x'.repeat(32),
    LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    ...SDK_NODE_WARNING_OFF,
  };
  const rows: Array<Record<string, string | number>> = [];
  for (const fn of FUNCTIONS) {
    const traced = join(OUT, `${fn}-traced.mjs`);
    const bare = join(OUT, `${fn}-bare.mjs`);
    const tracedSize = await bundle(`functions/${fn}/handler.ts`, traced);
    const bareSize = await bundle(`functions/${fn}/handler.ts`, bare, [passThrough]);
    const samples: Record<'traced' | 'bare', Timed[]> = { traced: [], bare: [] };
    const probe = async (file: string) =>
      JSON.parse(
        (await run(process.execPath, [join(OUT, 'import-probe.mjs'), resolve(file)], { env: offEnv, encoding: 'utf8' })).stdout,
      ) as Timed;
    for (let i = 0; i < RUNS; i += 1) {
      samples.traced.push(await probe(traced));
      samples.bare.push(await probe(bare));
    }
    const p50 = (k: 'traced' | 'bare', f: keyof Timed) => stats(samples[k].map((s) => s[f])).p50;
    rows.push({
      function: fn,
      'bundle KB (traced / bare)': `${(tracedSize / 1024).toFixed(0)} / ${(bareSize / 1024).toFixed(0)}`,
      'import ms p50 (traced / bare)': `${p50('traced', 'ms')} / ${p50('bare', 'ms')}`,
      'import CPU ms p50 (traced / bare)': `${p50('traced', 'cpuMs')} / ${p50('bare', 'cpuMs')}`,
    });
  }
  const spanBundle = join(OUT, 'span.mjs');
  await bundle(join(OUT, 'span-entry.ts'), spanBundle);
  const onEnv = {
    ...offEnv,
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    LAMBDA_TASK_ROOT: '/var/task',
    // Nothing listens there: a UDP datagram is sent all the same.
    AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
    _X_AMZN_TRACE_ID: 'Root=1-67a1b2c3-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1',
  };
  const spans: Array<{ first: Timed; second: Timed }> = [];
  for (let i = 0; i < RUNS; i += 1)
    spans.push(
      JSON.parse(
        (await run(process.execPath, [join(OUT, 'span-probe.mjs'), resolve(spanBundle)], { env: onEnv, encoding: 'utf8' })).stdout,
      ),
    );
  const p50 = (xs: number[]) => stats(xs).p50;
  const on = table([
    {
      'on, sampled': 'first span (imports the tracer)',
      'ms p50': p50(spans.map((s) => s.first.ms)),
      'CPU ms p50': p50(spans.map((s) => s.first.cpuMs)),
    },
    { 'on, sampled': 'second span', 'ms p50': p50(spans.map((s) => s.second.ms)), 'CPU ms p50': p50(spans.map((s) => s.second.cpuMs)) },
  ]);
  return `Off (no Lambda environment: the tracer is never imported), ${RUNS} fresh processes each, alternating; the tracer's own file ${(tracerSize / 1024).toFixed(0)} KB:\n\n${table(rows)}\n\nOn (a Lambda environment with active tracing, trace.ts bundled alone), ${RUNS} fresh processes:\n\n${on}\n\nNode ${process.version}`;
}
