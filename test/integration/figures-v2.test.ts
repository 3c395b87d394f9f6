import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { z } from 'zod';
import { getRun } from '#shared/reads/catalog/runs.js';
import { listCompetitors } from '#shared/reads/figures/competitors.js';
import { listEngines } from '#shared/reads/figures/engines.js';
import { getMetrics } from '#shared/reads/figures/metrics.js';
import { getMetricsTimeseries } from '#shared/reads/figures/timeseries.js';
import { tQuantile } from '#shared/reads/stats.js';
import type { LocalApi } from '../../local/stack.js';
import { EDGE_ANALYSIS, EDGE_IDS, EDGE_SECRET } from '../fixtures/figure-edges.js';
import { call, expectServed, readerUrl, startTestApi } from '../support/api.js';

/**
 * Every interval and comparison figure (delta_ci95 and significant on rates, ci95 / delta_ci95 / significant on means,
 * ci95 on every series point, comparison.comparable / changes, a run's changes) recomputed here from the
 * raw rows (answers, mentions, citations) of test/fixtures/figure-edges.ts, with the formulas written out
 * below rather than the service's: Wilson, Newcombe's method 10, Student t from a two-pass standard
 * deviation, Welch–Satterthwaite. Only the t quantile is the service's, itself tested against published
 * tables in test/unit/reads/stats.test.ts. The fixture hits n = 0, 1 and 2, zero variance, ties, a period with
 * another engine set, a first run and a run still extracting.
 */

let api: LocalApi;
let db: pg.Client;
interface Fact {
  run: string;
  day: string;
  engine: string;
  prompt: string;
  state: string;
  recipe: string | null;
  brands: Array<{ name: string; position: number; tracked: boolean; sentiment: number | null }>;
  domains: string[];
}
let facts: Fact[] = [];
let runs: Array<{ id: string; day: string; state: string; started_at: string }> = [];

beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: readerUrl() });
  await db.connect();
  const a = await db.query<{ id: string; run: string; day: string; engine: string; prompt: string; state: string; recipe: string | null }>(
    `SELECT x.id, x.run_id AS run, to_char((r.started_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, x.engine, x.prompt_id AS prompt,
            x.extraction_state AS state, x.recipe
       FROM answers x JOIN runs r ON r.id = x.run_id WHERE x.analysis_id = $1`,
    [EDGE_IDS.analysis],
  );
  const m = await db.query<{ answer: string; name: string; position: number; tracked: boolean; sentiment: string | null }>(
    `SELECT m.answer_id AS answer, coalesce(k.name, m.brand_name) AS name, m.position, m.is_tracked AS tracked, m.sentiment
       FROM mentions m JOIN answers x ON x.id = m.answer_id LEFT JOIN competitors k ON k.id = m.competitor_id WHERE x.analysis_id = $1`,
    [EDGE_IDS.analysis],
  );
  const c = await db.query<{ answer: string; domain: string }>(
    'SELECT c.answer_id AS answer, c.domain FROM citations c JOIN answers x ON x.id = c.answer_id WHERE x.analysis_id = $1',
    [EDGE_IDS.analysis],
  );
  facts = a.rows.map((r) => ({
    ...r,
    brands: m.rows
      .filter((x) => x.answer === r.id)
      .map((x) => ({
        name: x.name,
        position: x.position,
        tracked: x.tracked,
        sentiment: x.sentiment === null ? null : Number(x.sentiment),
      })),
    domains: c.rows.filter((x) => x.answer === r.id).map((x) => x.domain),
  }));
  runs = (
    await db.query<{ id: string; day: string; state: string; started_at: Date }>(
      `SELECT id, to_char((started_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, state, started_at FROM runs WHERE analysis_id = $1`,
      [EDGE_IDS.analysis],
    )
  ).rows.map((r) => ({ ...r, started_at: r.started_at.toISOString() }));
});
afterAll(async () => {
  await db?.end();
  await api?.close();
});

const A = `/analyses/${EDGE_ANALYSIS}`;
async function get<T extends z.ZodType>(path: string, schema: T): Promise<z.infer<T>> {
  return expectServed(await call(api, path, EDGE_SECRET), schema);
}

// --- The formulas, from their definitions -----------------------------------------------------------

const Z = 1.959963984540054;
const r6 = (x: number) => {
  const r = Math.round(x * 1e6) / 1e6;
  return Object.is(r, -0) ? 0 : r;
};
type Iv = { low: number; high: number } | null;
function wilsonRaw(k: number, n: number): [number, number] | null {
  if (n === 0) return null;
  const p = k / n;
  const centre = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n);
  const half = (Z / (1 + (Z * Z) / n)) * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
const wilson = (k: number, n: number): Iv => {
  const w = wilsonRaw(k, n);
  return w && { low: r6(w[0]), high: r6(w[1]) };
};
function newcombe(k1: number, n1: number, k2: number, n2: number): Iv {
  const a = wilsonRaw(k1, n1);
  const b = wilsonRaw(k2, n2);
  if (!a || !b) return null;
  const [p1, p2] = [k1 / n1, k2 / n2];
  return {
    low: r6(Math.max(-1, p1 - p2 - Math.hypot(p1 - a[0], b[1] - p2))),
    high: r6(Math.min(1, p1 - p2 + Math.hypot(a[1] - p1, p2 - b[0]))),
  };
}
const excludes0 = (iv: Iv) => (iv ? iv.low > 0 || iv.high < 0 : null);
function rateOf(k: number, n: number, prev: [number, number] | null, measured = true) {
  const value = (kk: number, nn: number) => (nn > 0 ? r6(kk / nn) : null);
  const cur = { value: measured ? value(k, n) : null, numerator: k, denominator: n, ci95: measured ? wilson(k, n) : null };
  const both = prev !== null && measured && n > 0 && prev[1] > 0;
  const d = both ? newcombe(k, n, prev[0], prev[1]) : null;
  return {
    ...cur,
    previous: prev && { value: value(prev[0], prev[1]), numerator: prev[0], denominator: prev[1], ci95: wilson(prev[0], prev[1]) },
    delta: both ? r6(k / n - prev[0] / prev[1]) : null,
    delta_ci95: d,
    significant: excludes0(d),
  };
}
const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
/** Sample variance, two passes over the values. */
const sampleVar = (xs: number[]) => xs.reduce((s, x) => s + (x - avg(xs)) ** 2, 0) / (xs.length - 1);
function tInterval(xs: number[]): Iv {
  if (xs.length < 2) return null;
  const half = tQuantile(0.975, xs.length - 1) * Math.sqrt(sampleVar(xs) / xs.length);
  return { low: r6(avg(xs) - half), high: r6(avg(xs) + half) };
}
function welch(a: number[], b: number[]): Iv {
  if (a.length < 2 || b.length < 2) return null;
  const [va, vb] = [sampleVar(a) / a.length, sampleVar(b) / b.length];
  const d = avg(a) - avg(b);
  // Zero variance shows up as rounding dust in a two-pass variance of decimals (0.5 + 0.5...): below 1e-20 it is 0.
  if (va + vb < 1e-20) return { low: r6(d), high: r6(d) };
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const half = tQuantile(0.975, df) * Math.sqrt(va + vb);
  return { low: r6(d - half), high: r6(d + half) };
}
function meanOf(xs: number[], prev: number[] | null) {
  const one = (v: number[]) => ({ value: v.length ? r6(avg(v)) : null, count: v.length, ci95: tInterval(v) });
  const d = prev ? welch(xs, prev) : null;
  return {
    ...one(xs),
    previous: prev && one(prev),
    delta: prev && xs.length && prev.length ? r6(avg(xs) - avg(prev)) : null,
    delta_ci95: d,
    significant: excludes0(d),
  };
}

// --- Raw figures of a set of runs ---------------------------------------------------------------------

function raw(runIds: string[], engine?: string) {
  const all = facts.filter((f) => runIds.includes(f.run) && (!engine || f.engine === engine));
  const ok = all.filter((f) => f.state === 'extracted');
  const tracked = ok.flatMap((f) => f.brands.filter((b) => b.tracked));
  return {
    answers: all.length,
    extracted: ok.length,
    mentioned: ok.filter((f) => f.brands.some((b) => b.tracked)).length,
    tracked: tracked.length,
    brands: ok.reduce((n, f) => n + f.brands.length, 0),
    positions: ok
      .filter((f) => f.brands.some((b) => b.tracked))
      .map((f) => Math.min(...f.brands.filter((b) => b.tracked).map((b) => b.position))),
    sentiments: tracked.map((b) => b.sentiment).filter((s): s is number => s !== null),
    citations: ok.reduce((n, f) => n + f.domains.length, 0),
    owned: ok.reduce((n, f) => n + f.domains.filter((d) => d === 'fixo.com').length, 0),
    engines: new Set(all.map((f) => f.engine)),
    prompts: new Set(all.map((f) => f.prompt)),
    recipes: new Set(ok.map((f) => f.recipe)),
  };
}
const sameSet = (a: Set<unknown>, b: Set<unknown>) => a.size === b.size && [...a].every((x) => b.has(x));

function headlineOf(cur: ReturnType<typeof raw>, prev: ReturnType<typeof raw> | null) {
  const reason = cur.extracted === 0 ? 'not_measured' : cur.citations === 0 ? 'no_citations' : null;
  return {
    answers: cur.answers,
    extracted_answers: cur.extracted,
    visibility: rateOf(cur.mentioned, cur.extracted, prev && [prev.mentioned, prev.extracted]),
    share_of_voice: rateOf(cur.tracked, cur.brands, prev && [prev.tracked, prev.brands]),
    average_position: meanOf(cur.positions, prev ? prev.positions : null),
    sentiment: meanOf(cur.sentiments, prev ? prev.sentiments : null),
    source_share: { ...rateOf(cur.owned, cur.citations, prev && [prev.owned, prev.citations]), null_reason: reason },
  };
}
function changesOf(cur: ReturnType<typeof raw>, prev: ReturnType<typeof raw>) {
  const changes = [
    ...(sameSet(cur.engines, prev.engines) ? [] : ['engines']),
    ...(sameSet(cur.prompts, prev.prompts) ? [] : ['prompts']),
    ...(sameSet(cur.recipes, prev.recipes) ? [] : ['recipes']),
  ];
  return { comparable: changes.length === 0, changes };
}

// --- The checks -----------------------------------------------------------------------------------------

const [E0, E1, E2, E3] = EDGE_IDS.runs;
const WINDOWS: Array<[string, string, string[], string[] | null, string[]]> = [
  // query, what it covers, current runs, previous runs (null: no comparison), expected changes
  [
    'from=2025-04-02&to=2025-04-02',
    'E1 (zero variance, n = 2) against E0 (first run, one engine, n = 1)',
    [E1],
    [E0],
    ['engines', 'prompts'],
  ],
  ['from=2025-04-03&to=2025-04-03', 'E2 against E1: alike, comparable', [E2], [E1], []],
  ['window=last-run', 'E3 (extracting: measures null) against E2', [E3], [E2], ['engines', 'recipes']],
  ['window=7d', 'every run against an empty week', [E0, E1, E2, E3], [], ['engines', 'prompts', 'recipes']],
  ['from=2025-04-02&to=2025-04-03', 'E1 + E2 against E0 + nothing', [E1, E2], [E0], ['engines', 'prompts']],
  ['window=all', 'every run, no comparison', [E0, E1, E2, E3], null, []],
];

describe('figures recomputed from the raw rows (get_metrics, list_engines)', () => {
  test.each(WINDOWS)('%s: %s', async (qs, _what, cur, prev, changes) => {
    const body = await get(`${A}/metrics?${qs}`, getMetrics.output);
    const c = raw(cur);
    const p = prev && raw(prev);
    expect(body.metrics).toEqual(headlineOf(c, p));
    if (p) {
      expect(body.context.comparison).toMatchObject(changesOf(c, p));
      expect(body.context.comparison?.changes).toEqual(changes);
    } else expect(body.context.comparison).toBeNull();

    const engines = await get(`${A}/engines?${qs}`, listEngines.output);
    expect(engines.items.map((i) => i.engine.key)).toEqual(['chatgpt', 'perplexity']);
    for (const item of engines.items)
      expect(item).toEqual({ engine: item.engine, ...headlineOf(raw(cur, item.engine.key), prev && raw(prev, item.engine.key)) });
  });

  test('the three sets compared, one at a time, are those of the raw rows', () => {
    // A check of the fixture itself: each expected change above is a real difference of sets.
    expect([...raw([E0]).engines]).toEqual(['chatgpt']);
    expect(raw([E1]).engines).toEqual(new Set(['chatgpt', 'perplexity']));
    expect(raw([E0]).prompts).toEqual(new Set([EDGE_IDS.p1]));
    expect(raw([E3]).recipes.size).toBe(0);
  });
});

describe('competitors: ties and means per brand (list_competitors)', () => {
  test('E2 against E1: Fixo and Rival tie; Rival’s positions 2 and 1 against none', async () => {
    const body = await get(`${A}/competitors?from=2025-04-03&to=2025-04-03`, listCompetitors.output);
    const brandPositions = (runIds: string[], name: string) =>
      facts
        .filter((f) => runIds.includes(f.run) && f.state === 'extracted' && f.brands.some((b) => b.name === name))
        .map((f) => Math.min(...f.brands.filter((b) => b.name === name).map((b) => b.position)));
    const rival = body.items.find((i) => i.name === 'Rival');
    expect(body.tracked.rank).toBe(1);
    expect(rival?.rank).toBe(1);
    expect(rival?.average_position).toEqual(meanOf(brandPositions([E2], 'Rival'), brandPositions([E1], 'Rival')));
    expect(body.tracked.average_position).toEqual(meanOf(brandPositions([E2], 'Fixo'), brandPositions([E1], 'Fixo')));
    const nimbus = body.items.find((i) => i.name === 'Nimbus');
    expect(nimbus?.average_position).toEqual(meanOf(brandPositions([E2], 'Nimbus'), brandPositions([E1], 'Nimbus')));
  });
});

describe('every series point carries its intervals (get_metrics_timeseries)', () => {
  test('2025-04-01..04-04: each day’s run, rates with Wilson, means with t', async () => {
    const body = await get(`${A}/metrics/timeseries?from=2025-04-01&to=2025-04-04`, getMetricsTimeseries.output);
    expect(body.points).toHaveLength(4);
    for (const point of body.points) {
      if (point.state === 'no_run') throw new Error(`${point.day}: every day of the fixture has a run`);
      const c = raw([point.run_id]);
      const h = headlineOf(c, null);
      const dayRate = (r: { value: number | null; numerator: number; denominator: number; ci95: Iv }) => ({
        value: r.value,
        numerator: r.numerator,
        denominator: r.denominator,
        ci95: r.ci95,
      });
      const dayMean = (m: { value: number | null; count: number; ci95: Iv }) => ({ value: m.value, count: m.count, ci95: m.ci95 });
      expect(point).toEqual({
        day: point.day,
        state: point.run_id === E3 ? 'extraction_late' : 'measured',
        run_id: point.run_id,
        answers: c.answers,
        extracted_answers: c.extracted,
        visibility: dayRate(h.visibility),
        share_of_voice: dayRate(h.share_of_voice),
        average_position: dayMean(h.average_position),
        sentiment: dayMean(h.sentiment),
        source_share: { ...dayRate(h.source_share), null_reason: h.source_share.null_reason },
      });
    }
    // n = 1 (E0) has no interval; zero variance (E1) a single point.
    expect(body.points[0]).toMatchObject({ average_position: { value: 1, count: 1, ci95: null } });
    expect(body.points[1]).toMatchObject({ average_position: { value: 2, count: 2, ci95: { low: 2, high: 2 } } });
  });
});

describe('what changed since the previous run (get_run)', () => {
  function expectedChanges(runId: string) {
    const run = runs.find((r) => r.id === runId);
    if (run?.state !== 'finished') return null;
    const before = runs
      .filter((r) => r.state === 'finished' && (r.started_at < run.started_at || (r.started_at === run.started_at && r.id < run.id)))
      .sort((a, b) => (a.started_at < b.started_at ? 1 : -1))[0];
    const counts = (id: string, kind: 'brands' | 'domains') => {
      const m = new Map<string, number>();
      for (const f of facts.filter((x) => x.run === id && x.state === 'extracted'))
        for (const name of kind === 'brands' ? f.brands.map((b) => b.name) : f.domains) m.set(name, (m.get(name) ?? 0) + 1);
      return m;
    };
    const turnover = (kind: 'brands' | 'domains') => {
      if (!before) return null;
      const [c, p] = [counts(runId, kind), counts(before.id, kind)];
      const order = (m: Map<string, number>) => (a: string, b: string) => (m.get(b) ?? 0) - (m.get(a) ?? 0) || (a < b ? -1 : 1);
      const entered = [...c.keys()].filter((k) => !p.has(k)).sort(order(c));
      const left = [...p.keys()].filter((k) => !c.has(k)).sort(order(p));
      return { entered: entered.slice(0, 50), left: left.slice(0, 50), entered_total: entered.length, left_total: left.length };
    };
    const vis = (engine?: string) => {
      const c = raw([runId], engine);
      const p = before ? raw([before.id], engine) : null;
      return rateOf(c.mentioned, c.extracted, p && [p.mentioned, p.extracted]);
    };
    return {
      previous_run: before ? { id: before.id, started_at: before.started_at } : null,
      brands: turnover('brands'),
      domains: turnover('domains'),
      visibility: vis(),
      engines: [
        { engine: { key: 'chatgpt', name: 'ChatGPT' }, visibility: vis('chatgpt') },
        { engine: { key: 'perplexity', name: 'Perplexity' }, visibility: vis('perplexity') },
      ],
    };
  }

  test.each([
    ['E0', 'a first run: no previous run, nothing entered or left', 0],
    ['E1', 'Nimbus and a.com entered; perplexity answered for the first time', 1],
    ['E2', 'Rival and Zed entered (ordered by mentions, then name), b.com entered, fixo.com left', 2],
    ['E3', 'still extracting: null', 3],
  ])('%s: %s', async (_label, _what, i) => {
    const id = EDGE_IDS.runs[i as 0 | 1 | 2 | 3];
    const body = await get(`${A}/runs/${id}`, getRun.output);
    expect(body.changes).toEqual(expectedChanges(id));
  });

  test('by hand: E2 against E1, and latest (E3, extracting) is null', async () => {
    const body = await get(`${A}/runs/${E2}`, getRun.output);
    expect(body.changes).toMatchObject({
      previous_run: { id: E1, started_at: '2025-04-02T08:00:00.000Z' },
      brands: { entered: ['Rival', 'Zed'], left: [], entered_total: 2, left_total: 0 },
      domains: { entered: ['b.com'], left: ['fixo.com'], entered_total: 1, left_total: 1 },
    });
    const latest = await get(`${A}/runs/latest`, getRun.output);
    expect([latest.id, latest.changes]).toEqual([E3, null]);
  });
});
