import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { migrate } from '#shared/admin/migrate.js';
import { lambdaContext, toApiGatewayEvent } from '../../local/adapter.js';
import { createHandlers } from '../../local/handlers.js';
import { SDK_NODE_WARNING_OFF } from '../../local/node-notice.js';
import { type LocalApi, localConfig, startApi } from '../../local/stack.js';
import { largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { measure, serverDatabase, stats, table, withUser } from './harness.js';
import { startPrivatePg } from './private-pg.js';

/**
 * What a call costs beyond its own SQL, on the 1-year dataset in a PostgreSQL cluster of the
 * bench's own (pg_stat_statements loaded), with the budget counter (dynalite) in a process of its own:
 *
 *  1. database time per call, as the server counts it (planning + execution, pg_stat_statements), of the
 *     statements a read sends, against the very same statements prepared (named, planned once);
 *  2. end to end p50 through the local HTTP adapter (key, budget, validation, read, JSON) against the
 *     bare SQL: the same statements, prepared, from a pg client, one after the other;
 *  3. throughput under load against a bare node:http + pg server answering the same JSON
 *     (test/bench/bare-server.ts), with each process's CPU.
 */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));

interface Statement {
  text: string;
  params: unknown[];
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds a PostgreSQL cluster has used so far: the postmaster, its live children (backends, workers),
 * and the children it has already reaped (cutime + cstime), so a backend that ends between two readings
 * still counts.
 */
function clusterCpuSeconds(postmaster: number): number {
  const fields = readFileSync(`/proc/${postmaster}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const reaped = (Number(fields[13]) + Number(fields[14])) / 100;
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  const live = children.reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(pid);
    } catch {
      return sum; // ended since the listing: counted in `reaped` next time
    }
  }, 0);
  return cpuSeconds(postmaster) + reaped + live;
}

function spawnJsonChild(file: string, env: Record<string, string>): Promise<{ proc: ChildProcess; info: Record<string, unknown> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, ...SDK_NODE_WARNING_OFF, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
    createInterface({ input: proc.stdout! }).once('line', (line) => resolve({ proc, info: JSON.parse(line) as Record<string, unknown> }));
  });
}

/** A keep-alive GET with node:http, lighter than fetch, so the client's own cost stays small. */
function getter(base: string, key: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(base);
  return (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: `${url.pathname}${path}`, agent, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.end();
    });
}

export default async function run(): Promise<string> {
  const cluster = await startPrivatePg();
  const procs: ChildProcess[] = [];
  let api: LocalApi | undefined;
  try {
    const m = largeManifest({ years: 1 });
    const ownerUrl = await serverDatabase(
      'geo_bench_1y',
      async (db) => {
        await migrate(db);
        await seedLarge(db, { years: 1 });
      },
      cluster.url('postgres'),
    );
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    await owner.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const readerUrl = withUser(ownerUrl, 'geo_reader');

    const budget = await spawnJsonChild(here('./budget-server.ts'), { BUDGET_TABLE: 'geo-budget-bench' });
    procs.push(budget.proc);
    const budgetEndpoint = budget.info.endpoint as string;
    const ceilings = JSON.stringify({ growth: 1_000_000_000, tiny: 1_000_000_000 });
    api = await startApi(
      localConfig(readerUrl, budgetEndpoint, { BUDGET_TABLE: 'geo-budget-bench', LOG_LEVEL: 'SILENT', PLAN_CEILINGS: ceilings }),
    );

    // The statements each call sends, captured on the service's own pool.
    const captured: Statement[] = [];
    const db = api.services.db as { query: (text: string, params?: unknown[]) => Promise<unknown[]> };
    const query = db.query.bind(db);
    db.query = async (text, params = []) => {
      captured.push({ text, params });
      return query(text, params);
    };
    const get = getter(api.baseUrl, m.secret);
    const a = `/analyses/${m.analysisSlug}`;
    const ok = async (path: string) => {
      const r = await get(path);
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body.slice(0, 200)}`);
      return r.body;
    };
    const from30 = new Date(Date.parse(`${m.endDate}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    const firstAnswer = (JSON.parse(await ok(`${a}/answers?from=${from30}&to=${m.endDate}&limit=1`)) as { items: Array<{ id: string }> })
      .items[0]!.id;
    const cases: Array<[string, string, string]> = [
      ['1', '/me', 'identity'],
      ['2', '/analyses', 'identity'],
      ['3', a, 'identity'],
      ['4', `${a}/metrics?window=30d`, 'figures'],
      ['4', `${a}/metrics?window=all`, 'figures'],
      ['5', `${a}/metrics/timeseries?window=30d`, 'figures'],
      ['5', `${a}/metrics/timeseries?window=all`, 'figures'],
      ['6', `${a}/engines?window=30d`, 'figures'],
      ['7', `${a}/competitors?window=30d`, 'figures'],
      ['8', `${a}/sources?window=30d`, 'figures'],
      ['9', `${a}/groups?window=30d`, 'figures'],
      ['10', `${a}/groups/${m.groupIds[0]}/prompts?window=30d`, 'figures'],
      ['11', `${a}/prompts`, 'catalog'],
      ['12', `${a}/runs`, 'catalog'],
      ['13', `${a}/runs/latest`, 'catalog'],
      ['14', `${a}/answers?from=${from30}&to=${m.endDate}`, 'catalog'],
      ['15', `${a}/answers/${firstAnswer}`, 'catalog'],
    ];

    const reader = new pg.Client({ connectionString: readerUrl });
    await reader.connect();
    const replay = async (stmts: Statement[], prepared: boolean, tag: string) => {
      for (const [i, s] of stmts.entries())
        await reader.query(prepared ? { name: `${tag}_${i}`, text: s.text, values: s.params } : { text: s.text, values: s.params });
    };
    /** Server time per call (ms) of the statements, from pg_stat_statements, over `n` calls. */
    const serverTime = async (stmts: Statement[], prepared: boolean, tag: string, n: number) => {
      await owner.query('SELECT pg_stat_statements_reset()');
      for (let i = 0; i < n; i += 1) await replay(stmts, prepared, tag);
      const { rows } = await owner.query<{ ms: number }>(
        `SELECT coalesce(sum(total_plan_time + total_exec_time), 0)::float8 / $1 AS ms
           FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
          WHERE r.rolname = 'geo_reader' AND s.query LIKE '%api\\_%'`,
        [n],
      );
      return rows[0]!.ms;
    };
    /**
     * The same statements as sent (unnamed) and prepared, in alternating rounds so that drift in the shared
     * machine's load falls on both alike; medians of the rounds. A call's database time is a tenth of a
     * millisecond for some reads, where one disturbed round would decide a single measurement.
     */
    const ROUNDS = 7;
    const serverTimes = async (stmts: Statement[], tag: string) => {
      for (let i = 0; i < 10; i += 1) for (const prepared of [false, true]) await replay(stmts, prepared, tag);
      const unnamed: number[] = [];
      const named: number[] = [];
      const ratios: number[] = [];
      for (let r = 0; r < ROUNDS; r += 1) {
        unnamed.push(await serverTime(stmts, false, tag, Math.ceil(SAMPLES / 2)));
        named.push(await serverTime(stmts, true, tag, Math.ceil(SAMPLES / 2)));
        ratios.push(unnamed.at(-1)! / named.at(-1)!);
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      return { unnamed: median(unnamed), prepared: median(named), ratio: median(ratios) };
    };
    const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

    // The budget UpdateItem alone, as the service sends it, against the same dynalite: the one round trip a
    // call makes beyond its SQL, which no bare SQL figure contains.
    const budgetCall = await measure(() => api!.services.counter.consume('bench-budget-alone', 1_000_000_000), SAMPLES, 20);

    /**
     * The whole call against the I/O it cannot skip, call by call in turn: the call end to end, then its
     * statements prepared from a pg client followed by the same SDK UpdateItem (the service's own budget
     * client); p50 of each. /me, metrics 30d, and an MCP tools/call of the same read.
     */
    const mcpAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const mcpUrl = new URL(`${api.baseUrl}/mcp`);
    const mcpCall = (name: string, args: Record<string, unknown>) => () =>
      new Promise<string>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
        const req = request(
          {
            host: mcpUrl.hostname,
            port: mcpUrl.port,
            path: mcpUrl.pathname,
            method: 'POST',
            agent: mcpAgent,
            headers: {
              authorization: `Bearer ${m.secret}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              if (res.statusCode !== 200 || /"isError":\s*true/.test(text))
                reject(new Error(`tools/call ${name}: ${res.statusCode} ${text.slice(0, 200)}`));
              else resolve(text);
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    /**
     * The same call as Lambda runs it: the handler invoked with the API Gateway event, without the local
     * HTTP hop (client, server, event building) that stands in for API Gateway and Lambda's runtime. The
     * event is built before the clock starts, as API Gateway builds it before the function runs.
     */
    const handlers = createHandlers(api.services);
    const invoke =
      (method: string, path: string, body = '') =>
      async () => {
        const url = new URL(`${api!.baseUrl}${path}`);
        const rawHeaders = ['host', url.host, 'authorization', `Bearer ${m.secret}`];
        if (body) rawHeaders.push('content-type', 'application/json', 'accept', 'application/json, text/event-stream');
        const { event, target } = toApiGatewayEvent({ method, url: `${url.pathname}${url.search}`, rawHeaders, body });
        const context = lambdaContext(`geo-${target}`);
        const t = performance.now();
        const res = await handlers[target](event, context);
        const ms = performance.now() - t;
        if (res.statusCode !== 200 || /"isError":\s*true/.test(res.body ?? ''))
          throw new Error(`${path}: ${res.statusCode} ${res.body?.slice(0, 200)}`);
        return ms;
      };
    const mcpBody = (name: string, args: Record<string, unknown>) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    const metricsArgs = { analysis: m.analysisSlug, window: '30d' };
    const alternatingCases: Array<[string, () => Promise<unknown>, () => Promise<number>]> = [
      ['GET /me', () => ok('/me'), invoke('GET', '/me')],
      ['GET …/metrics?window=30d', () => ok(`${a}/metrics?window=30d`), invoke('GET', `${a}/metrics?window=30d`)],
      [
        'MCP tools/call get_metrics, window 30d',
        mcpCall('get_metrics', metricsArgs),
        invoke('POST', '/mcp', mcpBody('get_metrics', metricsArgs)),
      ],
    ];
    const alternating: Array<Record<string, string | number>> = [];
    for (const [label, callIt, invokeIt] of alternatingCases) {
      captured.length = 0;
      await callIt();
      const stmts = [...captured];
      const tag = `alt${alternating.length}`;
      const floor = async () => {
        await replay(stmts, true, tag);
        await api!.services.counter.consume('bench-budget-alone', 1_000_000_000);
      };
      for (let i = 0; i < 20; i += 1) {
        await callIt();
        await invokeIt();
        await floor();
      }
      const e2e: number[] = [];
      const handler: number[] = [];
      const io: number[] = [];
      for (let i = 0; i < SAMPLES; i += 1) {
        let t = performance.now();
        await callIt();
        e2e.push(performance.now() - t);
        handler.push(await invokeIt());
        t = performance.now();
        await floor();
        io.push(performance.now() - t);
      }
      const e = stats(e2e).p50;
      const h = stats(handler).p50;
      const f = stats(io).p50;
      alternating.push({
        call: label,
        statements: stmts.length,
        'e2e p50 ms': e,
        'handler p50 ms': h,
        'bare SQL + UpdateItem p50 ms': f,
        'e2e ÷ (bare SQL + UpdateItem)': round(e / f, 2),
        'handler ÷ (bare SQL + UpdateItem)': round(h / f, 2),
      });
    }
    mcpAgent.destroy();
    const alternatingTable = [
      table(alternating),
      '',
      `${SAMPLES} alternating samples per line after 20 of warm-up: the call end to end through the local HTTP adapter, the same call as Lambda runs it (its handler invoked with the API Gateway event), then its statements prepared from a pg client followed by the budget UpdateItem from the service's own client (dynalite in its own process); p50 of each.`,
    ].join('\n');
    if (process.env.BENCH_OVERHEAD_ONLY === 'alternating') {
      await reader.end();
      await owner.end();
      return alternatingTable;
    }

    const rows: Array<Record<string, string | number>> = [];
    for (const [n, path, family] of cases) {
      const e2e = await measure(() => ok(path), SAMPLES, 20);
      captured.length = 0;
      await ok(path);
      const stmts = [...captured];
      const tag = `c${rows.length}`;
      const bare = await measure(() => replay(stmts, true, tag), SAMPLES, 20);
      const db = await serverTimes(stmts, tag);
      rows.push({
        read: n,
        call: `GET ${path
          .replace(a, '/analyses/{a}')
          .replace(/answers\/[0-9a-f-]{36}/, 'answers/{id}')
          .replace(/prompts\?.*/, 'prompts?window=30d')
          .replace(/from=[\d-]+&to=[\d-]+/, 'last 30 days')}`,
        family,
        statements: stmts.length,
        'db ms/call': round(db.unnamed),
        'db ms prepared': round(db.prepared),
        'db ÷ prepared': round(db.ratio, 2),
        'e2e p50 ms': e2e.p50,
        'bare SQL p50 ms': bare.p50,
        'e2e ÷ bare SQL': round(e2e.p50 / bare.p50, 2),
        'e2e ÷ (bare SQL + budget call)': round(e2e.p50 / (bare.p50 + budgetCall.p50), 2),
      });
    }

    // Throughput: the service as its own process, against the bare server, each under the same load.
    const service = await spawnJsonChild(fileURLToPath(new URL('../../scripts/load/server.ts', import.meta.url)), {
      LOAD_READER_URL: readerUrl,
      LOAD_DYNAMODB_ENDPOINT: budgetEndpoint,
      LOAD_BUDGET_TABLE: 'geo-budget-bench',
      PLAN_CEILINGS: ceilings,
    });
    procs.push(service.proc);
    const bareServer = await spawnJsonChild(here('./bare-server.ts'), { BARE_DATABASE_URL: readerUrl });
    procs.push(bareServer.proc);
    const postmaster = Number(readFileSync('.local/bench-pg/data/postmaster.pid', 'utf8').split('\n')[0]);
    const load: Array<Record<string, string | number>> = [];
    for (const [label, path] of [
      ['metrics 30d', `/api/v1${a}/metrics?window=30d`],
      ['/me', '/api/v1/me'],
    ] as const) {
      const rps: Record<string, number[]> = { service: [], bare: [] };
      const cpu: Record<string, Record<string, number>> = { service: {}, bare: {} };
      for (let round = 0; round < 2; round += 1) {
        for (const [who, target] of [
          ['service', service],
          ['bare', bareServer],
        ] as const) {
          const url = `${target.info.url as string}${path}`;
          await autocannon({ url, connections: 8, duration: 2, headers: { authorization: `Bearer ${m.secret}` } });
          const pids = { server: target.proc.pid!, budget: budget.proc.pid!, postgres: postmaster };
          const before = { server: cpuSeconds(pids.server), budget: cpuSeconds(pids.budget), postgres: clusterCpuSeconds(pids.postgres) };
          const result = await autocannon({
            url,
            connections: 8,
            duration: LOAD_SECONDS,
            headers: { authorization: `Bearer ${m.secret}` },
          });
          if (result.non2xx > 0 || result.errors > 0) throw new Error(`${who} ${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          const after = { server: cpuSeconds(pids.server), budget: cpuSeconds(pids.budget), postgres: clusterCpuSeconds(pids.postgres) };
          rps[who]!.push(result.requests.average);
          const calls = result.requests.total;
          for (const k of ['server', 'budget', 'postgres'] as const) cpu[who]![k] = ((after[k] - before[k]) / calls) * 1000 * 1000;
        }
      }
      const s = stats(rps.service!).p50;
      const b = stats(rps.bare!).p50;
      load.push({
        call: label,
        'service req/s': s,
        'bare req/s': b,
        'service ÷ bare': round(s / b, 2),
        'service CPU µs/call (API / budget store / PostgreSQL)': `${Math.round(cpu.service!.server!)} / ${Math.round(cpu.service!.budget!)} / ${Math.round(cpu.service!.postgres!)}`,
        'bare CPU µs/call (server / PostgreSQL)': `${Math.round(cpu.bare!.server!)} / ${Math.round(cpu.bare!.postgres!)}`,
      });
    }
    await reader.end();
    await owner.end();
    return [
      `1-year dataset (${m.analysisSlug}) in the bench's own PostgreSQL ${await pgVersion(ownerUrl)} cluster with pg_stat_statements; budget counter (dynalite) in its own process; ${SAMPLES} sequential calls per line after 20 warm-up calls.`,
      '',
      table(rows),
      '',
      alternatingTable,
      '',
      `db ms/call: the server's planning + execution time per call (pg_stat_statements) of the statements as the service sends them (unnamed); prepared: the same statements as named prepared statements; ${ROUNDS} alternating rounds of ${Math.ceil(SAMPLES / 2)} calls each, medians (db ÷ prepared: median of the rounds' ratios). bare SQL: those statements prepared, from a pg client, client-side. budget call: the budget UpdateItem alone, from the service's own client, p50 ${budgetCall.p50} ms (dynalite in its own process).`,
      '',
      table(load),
      '',
      `autocannon, 8 connections, ${LOAD_SECONDS} s per run after 2 s of warm-up, two alternating runs each, median requests/s; CPU from /proc per call served.`,
    ].join('\n');
  } finally {
    await api?.close();
    for (const p of procs) p.kill('SIGTERM');
    await cluster.stop();
  }
}

async function pgVersion(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v.split(' ')[0] as string;
  } finally {
    await c.end();
  }
}
