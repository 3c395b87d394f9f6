import pg from 'pg';
import { migrate } from '#shared/admin/migrate.js';
import type { Queryable } from '#shared/store/queryable.js';
import { freshTableName, type LocalApi, localConfig, startApi } from '../../local/stack.js';
import { createBudgetTable, type LocalBudgetStore, type LocalStore, startBudgetStore, startStore, withUser } from '../../local/stores.js';

/** The machine's PostgreSQL server (trust auth); BENCH_PG_URL overrides. */
export const SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface Stats {
  n: number;
  p50: number;
  p95: number;
  mean: number;
}

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  const round = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, p50: round(at(0.5)), p95: round(at(0.95)), mean: round(s.reduce((a, b) => a + b, 0) / s.length) };
}

/** Warm-up, then `n` sequential timed runs of `fn` (ms). */
export async function measure(fn: () => Promise<unknown>, n = 200, warmup = 20): Promise<Stats> {
  for (let i = 0; i < warmup; i += 1) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

/** A GET through the local HTTP adapter that must answer 200. */
export function getter(api: LocalApi, key: string) {
  return async (path: string): Promise<unknown> => {
    const res = await fetch(`${api.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
}

/**
 * A database on the PostgreSQL server, created and filled once by `fill` and then reused by later
 * benchmark runs (a marker table records that the fill completed).
 */
export async function serverDatabase(name: string, fill: (db: Queryable) => Promise<void>, server = SERVER_URL): Promise<string> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  if (!exists) await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    const done = (await db.query(`SELECT to_regclass('bench_filled') IS NOT NULL AS done`)).rows[0].done as boolean;
    if (!done) {
      console.log(`filling ${name} (once; reused by later runs)...`);
      const t0 = Date.now();
      await fill(db);
      await db.query('CREATE TABLE bench_filled (at timestamptz DEFAULT now())');
      await db.query('ANALYZE');
      console.log(`filled ${name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    // A database filled before a later migration is brought up to date, as a deploy would.
    await migrate(db);
  } finally {
    await db.end();
  }
  return url.toString();
}

export interface BenchApi {
  api: LocalApi;
  close(): Promise<void>;
}

let budgetStore: LocalBudgetStore | undefined;

/** An API process-in-miniature over the given reader URL, with a budget too large to interfere. */
export async function benchApi(readerUrl: string, overrides: Record<string, string> = {}): Promise<BenchApi> {
  budgetStore ??= await startBudgetStore();
  const table = freshTableName();
  await createBudgetTable(budgetStore.endpoint, table);
  const api = await startApi(
    localConfig(readerUrl, budgetStore.endpoint, {
      BUDGET_TABLE: table,
      LOG_LEVEL: 'SILENT',
      PLAN_CEILINGS: JSON.stringify({ growth: 1_000_000, tiny: 1_000_000 }),
      ...overrides,
    }),
  );
  return { api, close: () => api.close() };
}

export async function closeBench(): Promise<void> {
  await budgetStore?.close();
  budgetStore = undefined;
}

/** The demo, either embedded (PGlite) or on a fresh database of the server. */
export async function demoStore(kind: 'embedded' | 'server'): Promise<LocalStore> {
  if (kind === 'embedded') return startStore({});
  const url = await serverDatabase('geo_bench_demo', async () => undefined);
  return startStore({ adminUrl: url, seed: true });
}

export { withUser };

export function table(rows: Array<Record<string, string | number>>): string {
  const cols = Object.keys(rows[0] ?? {});
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i] as number)).join(' | ')} |`;
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join('\n');
}
