import pg from 'pg';
import { migrate } from '#shared/admin/migrate.js';
import { getMetrics } from '#shared/reads/figures/metrics.js';
import { getMetricsTimeseries } from '#shared/reads/figures/timeseries.js';
import { newcombeP, rateFigure } from '#shared/reads/stats.js';
import type { ReadContext, ReadDef } from '#shared/reads/types.js';
import { largeManifest, seedLarge } from '../fixtures/large-dataset.js';
import { serverDatabase, table } from './harness.js';

/**
 * What a figure read does in the function after its statement answers: parse the statement's JSON, shape
 * the reply (intervals, tests, the Benjamini–Hochberg pass), and write it as JSON. The statement runs once,
 * against the 1-year large dataset; its answer is then replayed, so these figures hold no database or HTTP
 * time and move only with the function's own code. Also the per-call cost of the two pieces of arithmetic
 * every rate test runs. BENCH_DB_PREFIX names the database as for the figures section.
 */
const ROUNDS = 15;
const PER_ROUND = 50;
const PREFIX = process.env.BENCH_DB_PREFIX ?? 'geo_bench';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

/** The read run once on the store, its statement's answer kept as text; then replayed, timed by step. */
async function shaping(url: string, analysisId: string, read: ReadDef, input: Record<string, unknown>) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  let answer = '';
  // The statement as the read sends it, its json column kept as the text PostgreSQL sent (what pg would
  // parse), so that the replay parses the same text.
  const asText = { getTypeParser: () => (value: string) => value };
  const live = {
    query: async (text: string, params?: unknown[]) => {
      const res = await db.query({ text, values: params ?? [], types: asText });
      answer = res.rows[0].r as string;
      return [{ r: JSON.parse(answer) }];
    },
  };
  const ctx = { analysis: { id: analysisId, slug: String(input.analysis) }, now: new Date(), db: live } as unknown as ReadContext;
  await read.run(ctx, input);
  await db.end();
  const replay = { query: async () => [{ r: JSON.parse(answer) }] };
  const replayed = { ...ctx, db: replay } as ReadContext;
  const shape: number[] = [];
  const write: number[] = [];
  let chars = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let s = 0;
    let w = 0;
    for (let i = 0; i < PER_ROUND; i++) {
      const t0 = performance.now();
      const reply = await read.run(replayed, input);
      const t1 = performance.now();
      chars = JSON.stringify(reply).length;
      w += performance.now() - t1;
      s += t1 - t0;
    }
    shape.push(s / PER_ROUND);
    write.push(w / PER_ROUND);
  }
  return { answer: answer.length, chars, shape: median(shape), write: median(write) };
}

/** Microseconds per call of fn over `n` calls, the median of five rounds. */
function perCall(fn: (i: number) => unknown, n = 200_000): number {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    rounds.push(((performance.now() - t0) * 1000) / n);
  }
  return median(rounds);
}

export default async function run(): Promise<string> {
  const m = largeManifest({ years: 1 });
  const url = await serverDatabase(`${PREFIX}_1y`, async (db) => {
    await migrate(db);
    await seedLarge(db, { years: 1 });
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const id = (await client.query('SELECT id FROM analyses WHERE slug = $1', [m.analysisSlug])).rows[0].id as string;
  await client.end();
  const cases: [string, ReadDef, Record<string, unknown>][] = [
    ['5 timeseries, all', getMetricsTimeseries as ReadDef, { analysis: m.analysisSlug, window: 'all' }],
    ['5 timeseries, 30d', getMetricsTimeseries as ReadDef, { analysis: m.analysisSlug, window: '30d' }],
    ['4 metrics, 30d', getMetrics as ReadDef, { analysis: m.analysisSlug, window: '30d' }],
  ];
  const rows: Array<Record<string, string | number>> = [];
  for (const [name, read, input] of cases) {
    const r = await shaping(url, id, read, input);
    rows.push({
      read: name,
      'statement answer chars': r.answer,
      'reply chars': r.chars,
      'parse + shape ms': r.shape.toFixed(3),
      'JSON.stringify ms': r.write.toFixed(3),
    });
  }
  const arithmetic = [
    {
      step: 'newcombeP (the p-value of a rate change)',
      'µs per call': perCall((i) => newcombeP(300 + (i % 50), 1000, 320, 1000)).toFixed(3),
    },
    {
      step: 'rateFigure with a previous period',
      'µs per call': perCall((i) => rateFigure(300 + (i % 50), 1000, { k: 320, n: 1000 })).toFixed(3),
    },
  ];
  return [
    `The function's own work on a figure read's answer: the statement run once on the 1-year large dataset (PostgreSQL server), its answer replayed ${PER_ROUND} times a round, median of ${ROUNDS} rounds.`,
    '',
    table(rows),
    '',
    table(arithmetic),
  ].join('\n');
}
