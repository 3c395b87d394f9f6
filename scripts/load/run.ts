/**
 * `npm run bench:load`: two local API processes (two "Lambda instances") over one dynalite and one
 * PostgreSQL server database, driven by autocannon with a mix of every read of the table, across
 * several keys of two workspaces, for LOAD_SECONDS (default 125). It stops by itself and prints
 * markdown figures for docs/guarantees.md; the exit code is 1 when a guarantee did not hold:
 *  - only 200 and 429 were answered;
 *  - each workspace was served exactly its per-minute budget in every minute fully inside the run, and
 *    the served 200s equal the counter's total (nothing served uncounted, across both processes);
 *  - resident memory of each process grew less than 20% after warm-up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import autocannon from 'autocannon';
import pg from 'pg';
import { reads } from '#shared/reads/registry.js';
import { BASE_PATH } from '#shared/rest/routes.js';
import { noticeNodeVersion, SDK_NODE_WARNING_OFF } from '../../local/node-notice.js';
import { createBudgetTable, startBudgetStore } from '../../local/stores.js';
import { freshDemoStore } from '../../test/reliability/support/stores.js';

const SECONDS = Number(process.env.LOAD_SECONDS ?? 125);
const WARMUP_SECONDS = Number(process.env.LOAD_WARMUP_SECONDS ?? 30);
/** Per workspace per minute (the demo growth plan's own 600); the load exceeds it many times over. */
const BUDGET = Number(process.env.LOAD_BUDGET ?? 600);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 16);

interface Child {
  proc: ChildProcess;
  url: string;
  rss: Array<{ t: number; rss: number }>;
}

function startChild(env: Record<string, string>): Promise<Child> {
  const file = fileURLToPath(new URL('./server.ts', import.meta.url));
  const proc = spawn(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, ...SDK_NODE_WARNING_OFF, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rss: Child['rss'] = [];
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`load server exited with ${code}`)));
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const msg = JSON.parse(line) as { url: string; rss: number; ready?: boolean };
      rss.push({ t: Date.now(), rss: msg.rss });
      if (msg.ready) resolve({ proc, url: msg.url, rss });
    });
  });
}

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round = (x: number) => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  noticeNodeVersion();
  console.error(
    `load: ${SECONDS} s, warm-up ${WARMUP_SECONDS} s, budget ${BUDGET}/min per workspace, ${CONNECTIONS} connections per process`,
  );
  const { database, store } = await freshDemoStore('geo_load');
  const budgetStore = await startBudgetStore();
  const table = `geo-budget-load-${Date.now()}`;
  await createBudgetTable(budgetStore.endpoint, table);
  const { manifest } = store;
  if (!manifest) throw new Error('the demo store has no manifest, though freshDemoStore seeds it');

  // One analysis per workspace, with a real answer id for the answer read.
  const admin = new pg.Client({ connectionString: database.adminUrl });
  await admin.connect();
  const answerOf = async (analysisId: string) =>
    (
      await admin.query<{ id: string }>('SELECT id::text AS id FROM answers WHERE analysis_id = $1 ORDER BY captured_at DESC LIMIT 1', [
        analysisId,
      ])
    ).rows[0]?.id ?? 'none';
  const workspaces = [
    {
      name: 'acme',
      id: manifest.workspaces.acme as string,
      analysis: manifest.analyses.collected,
      answer: await answerOf(manifest.analysisIds.collected),
      keys: [manifest.keys.workspace, manifest.keys.brand, manifest.keys.analysis],
    },
    {
      name: 'globex',
      id: manifest.workspaces.globex as string,
      analysis: manifest.analyses.other_workspace,
      answer: await answerOf(manifest.analysisIds.other_workspace),
      keys: [manifest.keys.other_workspace],
    },
  ];
  await admin.end();

  const env = {
    LOAD_READER_URL: store.readerUrl,
    LOAD_DYNAMODB_ENDPOINT: budgetStore.endpoint,
    LOAD_BUDGET_TABLE: table,
    PLAN_CEILINGS: JSON.stringify({ growth: BUDGET }),
  };
  const children = await Promise.all([startChild(env), startChild(env)]);

  // The mix: every read of the table (whatever it holds now) x every key, in a fixed shuffled order.
  type Req = { read: string; ws: string; path: string; key: string };
  const mix: Req[] = [];
  for (const ws of workspaces) {
    const values: Record<string, string> = { analysis: ws.analysis, group: 'none', run: 'latest', answer: ws.answer };
    for (const read of reads) {
      const path = BASE_PATH + read.path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(values[n] ?? 'none'));
      for (const key of ws.keys) mix.push({ read: read.name, ws: ws.name, path, key });
    }
  }
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = mix.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rand() * (i + 1));
    [mix[i], mix[j]] = [mix[j] as Req, mix[i] as Req];
  }

  const latency = new Map<string, number[]>();
  const statuses = new Map<string, number>();
  const served = new Map<string, number>();
  const startedAt = Date.now();

  const drive = (url: string, offset: number) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      let last: Req | undefined;
      const rotated = [...mix.slice(offset), ...mix.slice(0, offset)];
      const instance = autocannon(
        {
          url,
          connections: CONNECTIONS,
          duration: SECONDS,
          requests: rotated.map((r) => ({
            method: 'GET' as const,
            path: r.path,
            headers: { authorization: `Bearer ${r.key}` },
            // Runs just before autocannon's 'response' event for the same response: tags it with its read.
            onResponse: () => {
              last = r;
            },
          })),
        },
        (err, result) => (err ? reject(err) : resolve(result)),
      );
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
        const r = last as Req;
        statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
        if (status === 200) {
          served.set(r.ws, (served.get(r.ws) ?? 0) + 1);
          let list = latency.get(r.read);
          if (!list) latency.set(r.read, (list = []));
          list.push(ms);
        }
        const key = `${r.read} ${status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      });
    });

  const results = await Promise.all(children.map((c, i) => drive(c.url, Math.floor((i * mix.length) / 2))));
  const endedAt = Date.now();
  // Calls still in flight when autocannon stops spend budget but are never seen as answered by it:
  // wait for the processes to finish them (they close on SIGTERM after in-flight calls) before reading the counter.
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          c.proc.removeAllListeners('exit');
          c.proc.once('exit', () => resolve());
          c.proc.kill('SIGTERM');
        }),
    ),
  );

  // The counter's own view, minute by minute (one item per workspace per UTC minute).
  const ddb = new DynamoDBClient({
    endpoint: budgetStore.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const items = (await ddb.send(new ScanCommand({ TableName: table }))).Items ?? [];
  ddb.destroy();
  const perMinute = items.map((it) => {
    const [, ws, minute] = (it.pk?.S ?? '').split('#');
    return { ws: workspaces.find((w) => w.id === ws)?.name ?? ws, minute: Number(minute), calls: Number(it.calls?.N) };
  });
  perMinute.sort((a, b) => a.minute - b.minute || String(a.ws).localeCompare(String(b.ws)));

  const failures: string[] = [];
  const total = [...statuses.entries()].filter(([k]) => /^\d+$/.test(k));
  const other = total.filter(([k]) => k !== '200' && k !== '429');
  if (other.length > 0) failures.push(`statuses other than 200/429: ${JSON.stringify(other)}`);
  for (const r of results) if (r.errors > 0 || r.timeouts > 0) failures.push(`autocannon errors ${r.errors}, timeouts ${r.timeouts}`);
  const firstFull = Math.ceil(startedAt / 60_000);
  const lastFull = Math.floor(endedAt / 60_000) - 1;
  const minuteRows: Array<Record<string, string | number>> = [];
  for (const m of perMinute) {
    const full = m.minute >= firstFull && m.minute <= lastFull;
    minuteRows.push({
      minute: new Date(m.minute * 60_000).toISOString().slice(11, 16),
      workspace: String(m.ws),
      served: m.calls,
      budget: BUDGET,
      'fully inside the run': full ? 'yes' : 'no',
    });
    if (full && m.calls !== BUDGET) failures.push(`${m.ws} minute ${m.minute}: ${m.calls} served, budget ${BUDGET}`);
    if (m.calls > BUDGET) failures.push(`${m.ws} minute ${m.minute}: ${m.calls} over budget ${BUDGET}`);
  }
  // Every 200 seen was counted; the counter may hold a few more, at most one per connection: the
  // calls in flight when autocannon stopped, whose answers it discards.
  const inFlight = CONNECTIONS * children.length;
  const countedRows: string[] = [];
  for (const ws of workspaces) {
    const counted = perMinute.filter((m) => m.ws === ws.name).reduce((n, m) => n + m.calls, 0);
    const seen = served.get(ws.name) ?? 0;
    countedRows.push(`${ws.name}: ${seen} 200s received, ${counted} counted`);
    if (counted < seen || counted - seen > inFlight) failures.push(`${ws.name}: ${seen} served 200s, counter says ${counted}`);
  }

  const memRows = children.map((c, i) => {
    const after = c.rss.filter((s) => s.t >= startedAt + WARMUP_SECONDS * 1000 && s.t <= endedAt);
    const base = after[0]?.rss ?? NaN;
    const lastRss = after[after.length - 1]?.rss ?? NaN;
    const max = Math.max(...after.map((s) => s.rss));
    const growth = (lastRss - base) / base;
    if (!(growth < 0.2)) failures.push(`process ${i + 1}: RSS grew ${round(growth * 100)}% after warm-up`);
    const mb = (b: number) => round(b / 1024 / 1024);
    return {
      process: i + 1,
      'RSS at warm-up end (MB)': mb(base),
      'RSS at end (MB)': mb(lastRss),
      'max after warm-up (MB)': mb(max),
      growth: `${round(growth * 100)}%`,
    };
  });

  const latRows = reads.map((r) => {
    const s = [...(latency.get(r.name) ?? [])].sort((a, b) => a - b);
    return {
      read: r.name,
      served: s.length,
      'refused 429': statuses.get(`${r.name} 429`) ?? 0,
      'p50 ms': round(pct(s, 0.5)),
      'p95 ms': round(pct(s, 0.95)),
    };
  });

  const table_ = (rows: Array<Record<string, string | number>>) => {
    const cols = Object.keys(rows[0] ?? {});
    return [
      `| ${cols.join(' | ')} |`,
      `| ${cols.map(() => '---').join(' | ')} |`,
      ...rows.map((r) => `| ${cols.map((c) => r[c]).join(' | ')} |`),
    ].join('\n');
  };
  const requests = results.reduce((n, r) => n + r.requests.total, 0);
  console.log(`## Load run (${new Date(startedAt).toISOString()}, ${round((endedAt - startedAt) / 1000)} s)

Two API processes, one dynalite, one PostgreSQL 15 database (demo seed); autocannon ${CONNECTIONS} connections per process;
${mix.length} request kinds (${reads.length} reads x keys of 2 workspaces); budget ${BUDGET}/min per workspace (PLAN_CEILINGS).

Requests: ${requests} (${round(requests / ((endedAt - startedAt) / 1000))}/s). Statuses: ${total.map(([k, v]) => `${k}: ${v}`).join(', ')}.
Served per workspace: ${countedRows.join('; ')} (difference: calls in flight when the driver stopped, at most ${inFlight}).

### Budget per minute (from the counter, both processes together)

${table_(minuteRows)}

### Memory

${table_(memRows)}

### Latency of served calls per read (client side, loopback)

${table_(latRows)}

Result: ${failures.length === 0 ? 'all guarantees held' : `FAILED\n- ${failures.join('\n- ')}`}
`);
  await budgetStore.close();
  await database.drop();
  process.exit(failures.length === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
