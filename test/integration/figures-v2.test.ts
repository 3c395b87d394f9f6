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
 *
 * The p-values too: a rate's by inverting the Newcombe interval here (bisection on the normal quantile,
 * the normal tail integrated numerically), a mean's by checking that the t quantile at 1 − p/2 is the
 * Welch statistic; significant_fdr by Benjamini–Hochberg written out below, over the p-values the reply
 * publishes; and the share of voice on the direct universe from the mentions of configured competitors.
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
  brands: Array<{ name: string; position: number; tracked: boolean; direct: boolean; sentiment: number | null }>;
  domains: string[];
}
let configuredCompetitors = 0;
/** The fixture's prompts by kind, as the store classifies them (the pipeline's branded, else the rule). */
let brandedPrompts = new Set<string>();
let otherPrompts = new Set<string>();
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
  const m = await db.query<{ answer: string; name: string; position: number; tracked: boolean; direct: boolean; sentiment: string | null }>(
    `SELECT m.answer_id AS answer, coalesce(k.name, m.brand_name) AS name, m.position, m.is_tracked AS tracked,
            m.competitor_id IS NOT NULL AS direct, m.sentiment
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
        direct: x.direct,
        sentiment: x.sentiment === null ? null : Number(x.sentiment),
      })),
    domains: c.rows.filter((x) => x.answer === r.id).map((x) => x.domain),
  }));
  configuredCompetitors = (
    await db.query<{ n: number }>('SELECT count(*)::int AS n FROM competitors WHERE analysis_id = $1', [EDGE_IDS.analysis])
  ).rows[0]?.n as number;
  const kinds = await db.query<{ id: string; branded: boolean }>(
    `SELECT p.id, coalesce(p.branded, fig_branded_rule(p.text, fig_brand_names(p.analysis_id))) AS branded
       FROM prompts p WHERE p.analysis_id = $1`,
    [EDGE_IDS.analysis],
  );
  brandedPrompts = new Set(kinds.rows.filter((r) => r.branded).map((r) => r.id));
  otherPrompts = new Set(kinds.rows.filter((r) => !r.branded).map((r) => r.id));
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

/**
 * A p-value recomputed below differs from the published one by the rounding of two independent
 * computations at most: compared to this, then left out of the exact comparison of everything else.
 */
const P_TOLERANCE = 2e-6;

/** Every p_value of a reply by its path (a.b.0.c). */
function pValues(v: unknown, path = '', out = new Map<string, number | null>()): Map<string, number | null> {
  if (v === null || typeof v !== 'object') return out;
  for (const [k, x] of Object.entries(v)) {
    const here = path ? `${path}.${k}` : k;
    if (k === 'p_value') out.set(here, x as number | null);
    else pValues(x, here, out);
  }
  return out;
}

/** Benjamini–Hochberg at q = 0.05, step-up, written out: which p-values are discoveries. */
function bh(ps: Map<string, number | null>): Map<string, boolean | null> {
  const tested = [...ps].filter((e): e is [string, number] => e[1] !== null).sort((a, b) => a[1] - b[1]);
  let k = 0;
  tested.forEach(([, p], i) => {
    if (p <= ((i + 1) * 0.05) / tested.length) k = i + 1;
  });
  const out = new Map<string, boolean | null>();
  for (const [path, p] of ps) out.set(path, p === null ? null : false);
  for (const [path] of tested.slice(0, k)) out.set(path, true);
  return out;
}

/**
 * Holds a reply to its recomputation: each p_value within P_TOLERANCE of the recomputed one, each
 * significant_fdr the Benjamini–Hochberg verdict on the reply's own p-values (and never true where
 * significant is not), and every other field exactly.
 */
function expectFigures(actual: unknown, expected: unknown, whole: unknown = actual) {
  const pa = pValues(actual);
  const pe = pValues(expected);
  expect([...pa.keys()].sort()).toEqual([...pe.keys()].sort());
  for (const [path, p] of pe) {
    const got = pa.get(path) ?? null;
    if (p === null || got === null) expect([path, got]).toEqual([path, p]);
    else expect([path, Math.abs(got - p) <= P_TOLERANCE ? 'close' : got]).toEqual([path, 'close']);
  }
  const flags = bh(pValues(whole));
  const prefix = findPrefix(whole, actual);
  const settle = (v: unknown, path: string, withP: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => settle(x, `${path}.${i}`, withP));
    if (v === null || typeof v !== 'object') return v;
    const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, settle(x, path ? `${path}.${k}` : k, withP)]));
    if ('p_value' in o) {
      o.p_value = null;
      if (!withP) {
        const flag = flags.get(`${prefix}${path ? `${path}.` : ''}p_value`) ?? null;
        o.significant_fdr = flag === null ? null : flag && o.significant === true;
      }
    }
    return o;
  };
  expect(settle(actual, '', true)).toEqual(settle(expected, '', false));
}

/** The path of `part` inside `whole` ('' for the whole itself), so that its p-values are found in the whole's. */
function findPrefix(whole: unknown, part: unknown, path = ''): string {
  if (whole === part) return path;
  if (whole === null || typeof whole !== 'object') return '\0';
  for (const [k, x] of Object.entries(whole)) {
    const found = findPrefix(x, part, `${path}${k}.`);
    if (found !== '\0') return found;
  }
  return '\0';
}

const withoutSegments = (b: { segments: unknown; context: unknown }) => ({ ...b, segments: null, context: null });

type Counted = { numerator: number; denominator: number } | { count: number };
/** Each count of the two segments (answers, numerators, denominators, counts) adds up to the pooled one. */
function expectAddsUp(
  segments: { branded: Record<string, unknown>; non_branded: Record<string, unknown> } | null,
  pooled: Record<string, unknown>,
) {
  if (!segments) throw new Error('segments asked for, none served');
  /** Every count of a headline, as [numerator, denominator] pairs (a mean's count and the volumes: [n, 0]). */
  const counts = (h: Record<string, unknown>) => {
    const out = new Map<string, [number, number]>();
    for (const [k, v] of Object.entries(h)) {
      if (typeof v === 'number') out.set(k, [v, 0]);
      const c = v as Counted | null;
      if (!c || typeof c !== 'object') continue;
      if ('count' in c) out.set(`${k}.count`, [c.count, 0]);
      else if ('numerator' in c) out.set(`${k}.n`, [c.numerator, c.denominator]);
    }
    return out;
  };
  const [b, n, all] = [counts(segments.branded), counts(segments.non_branded), counts(pooled)];
  expect(b.size).toBeGreaterThan(0);
  for (const [k, [x, y]] of b) {
    const [u, v] = n.get(k) ?? [Number.NaN, Number.NaN];
    expect([k, x + u, y + v]).toEqual([k, ...(all.get(k) ?? [])]);
  }
}

/** The context's count of tests: every non-null p_value of the reply. */
const testsOf = (body: unknown) => [...pValues(body).values()].filter((p) => p !== null).length;

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

/** Φ(z) − 1/2 for z ≥ 0, by Simpson's rule on the normal density (4,000 intervals). */
function normalHalf(z: number): number {
  const n = 4000;
  const h = z / n;
  const f = (x: number) => Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
  let s = f(0) + f(z);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * f(i * h);
  return (s * h) / 3;
}
/** Wilson at any quantile z. */
function wilsonAt(k: number, n: number, z: number): [number, number] {
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
/** The p-value the Newcombe interval implies: the quantile z at which its bound reaches 0, as 2·(1 − Φ(z)). */
function newcombeP(k1: number, n1: number, k2: number, n2: number): number {
  const [p1, p2] = [k1 / n1, k2 / n2];
  if (p1 === p2) return 1;
  const excludes = (z: number) => {
    const [a, b] = [wilsonAt(k1, n1, z), wilsonAt(k2, n2, z)];
    return p1 > p2 ? p1 - p2 - Math.hypot(p1 - a[0], b[1] - p2) > 0 : p1 - p2 + Math.hypot(a[1] - p1, p2 - b[0]) < 0;
  };
  let [lo, hi] = [0, 8];
  if (excludes(hi)) return 0;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (excludes(mid)) lo = mid;
    else hi = mid;
  }
  return r6(1 - 2 * normalHalf((lo + hi) / 2));
}
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
    p_value: d && prev ? newcombeP(k, n, prev[0], prev[1]) : null,
    significant_fdr: null as boolean | null,
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
/**
 * Welch's p-value, found as the level whose t quantile is the Welch statistic (bisection on the service's
 * t quantile, itself held to published tables): no incomplete beta function involved.
 */
function welchP(a: number[], b: number[]): number {
  const [va, vb] = [sampleVar(a) / a.length, sampleVar(b) / b.length];
  const d = avg(a) - avg(b);
  if (va + vb < 1e-20) return Math.abs(d) < 1e-12 ? 1 : 0;
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const t = Math.abs(d) / Math.sqrt(va + vb);
  if (t < 1e-12) return 1;
  let [lo, hi] = [1e-12, 1 - 1e-12];
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (tQuantile(1 - mid / 2, df) > t) lo = mid;
    else hi = mid;
  }
  return r6((lo + hi) / 2);
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
    p_value: d && prev ? welchP(xs, prev) : null,
    significant_fdr: null as boolean | null,
  };
}

// --- Raw figures of a set of runs ---------------------------------------------------------------------

function raw(runIds: string[], engine?: string, prompts?: Set<string>) {
  const all = facts.filter((f) => runIds.includes(f.run) && (!engine || f.engine === engine) && (!prompts || prompts.has(f.prompt)));
  const ok = all.filter((f) => f.state === 'extracted');
  const tracked = ok.flatMap((f) => f.brands.filter((b) => b.tracked));
  return {
    answers: all.length,
    extracted: ok.length,
    mentioned: ok.filter((f) => f.brands.some((b) => b.tracked)).length,
    tracked: tracked.length,
    brands: ok.reduce((n, f) => n + f.brands.length, 0),
    directMentions: ok.reduce((n, f) => n + f.brands.filter((b) => b.direct && !b.tracked).length, 0),
    discovered: new Set(ok.flatMap((f) => f.brands.filter((b) => !b.direct && !b.tracked).map((b) => b.name))).size,
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
/** The headline of a whole window: the same, with the share of voice among the direct competitors only. */
function windowHeadlineOf(cur: ReturnType<typeof raw>, prev: ReturnType<typeof raw> | null) {
  const { answers, extracted_answers, visibility, share_of_voice, ...rest } = headlineOf(cur, prev);
  const n = cur.tracked + cur.directMentions;
  return {
    answers,
    extracted_answers,
    visibility,
    share_of_voice,
    share_of_voice_direct: {
      ...rateOf(cur.tracked, n, prev && [prev.tracked, prev.tracked + prev.directMentions]),
      null_reason: cur.extracted === 0 ? 'not_measured' : n === 0 ? 'no_mentions' : null,
    },
    share_of_voice_universe: { direct: configuredCompetitors, discovered: cur.discovered },
    ...rest,
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
    expectFigures(body.metrics, windowHeadlineOf(c, p), body);
    expect(body.context.multiple_comparisons).toEqual({ method: 'benjamini-hochberg', q: 0.05, tests: testsOf(body) });
    if (p) {
      expect(body.context.comparison).toMatchObject(changesOf(c, p));
      expect(body.context.comparison?.changes).toEqual(changes);
    } else expect(body.context.comparison).toBeNull();

    expect(body.segments).toBeNull();
    // segments=branded: the same figures over each kind of prompt, from the rows of those prompts only.
    const split = await get(`${A}/metrics?${qs}&segments=branded`, getMetrics.output);
    expect(withoutSegments(split)).toEqual(withoutSegments(body));
    const seg = (kind: Set<string>, engine?: string) => headlineOf(raw(cur, engine, kind), prev && raw(prev, engine, kind));
    // The metrics' segments are window headlines: the direct share over the mentions in that kind's answers.
    const segWindow = (kind: Set<string>) => windowHeadlineOf(raw(cur, undefined, kind), prev && raw(prev, undefined, kind));
    expectFigures(split.segments, { branded: segWindow(brandedPrompts), non_branded: segWindow(otherPrompts) }, split);
    expect(split.context.multiple_comparisons.tests).toBe(testsOf(split));
    expectAddsUp(split.segments, split.metrics);

    const engines = await get(`${A}/engines?${qs}`, listEngines.output);
    expect(engines.items.map((i) => i.engine.key)).toEqual(['chatgpt', 'perplexity']);
    const splitEngines = await get(`${A}/engines?${qs}&segments=branded`, listEngines.output);
    for (const item of splitEngines.items) {
      const key = item.engine.key;
      expectFigures(item.segments, { branded: seg(brandedPrompts, key), non_branded: seg(otherPrompts, key) }, splitEngines);
      expectAddsUp(item.segments, item);
    }
    const series = await get(
      `${A}/metrics/timeseries?${qs.replace('window=last-run', 'window=7d')}&segments=branded`,
      getMetricsTimeseries.output,
    );
    expect(series.segments).not.toBeNull();
    expectAddsUp(series.segments, series.summary);
    for (const item of engines.items)
      expectFigures(
        item,
        { engine: item.engine, segments: null, ...headlineOf(raw(cur, item.engine.key), prev && raw(prev, item.engine.key)) },
        engines,
      );
    expect(engines.context.multiple_comparisons.tests).toBe(testsOf(engines));
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
    expectFigures(rival?.average_position, meanOf(brandPositions([E2], 'Rival'), brandPositions([E1], 'Rival')), body);
    expectFigures(body.tracked.average_position, meanOf(brandPositions([E2], 'Fixo'), brandPositions([E1], 'Fixo')), body);
    const nimbus = body.items.find((i) => i.name === 'Nimbus');
    expectFigures(nimbus?.average_position, meanOf(brandPositions([E2], 'Nimbus'), brandPositions([E1], 'Nimbus')), body);
    expect(body.context.multiple_comparisons.tests).toBe(testsOf(body));
  });
});

describe('every series point carries its intervals and its change (get_metrics_timeseries)', () => {
  test('2025-04-01..04-04: each day’s run, rates with Wilson, means with t, the move since the previous measured day', async () => {
    const body = await get(`${A}/metrics/timeseries?from=2025-04-01&to=2025-04-04`, getMetricsTimeseries.output);
    const split = await get(`${A}/metrics/timeseries?from=2025-04-01&to=2025-04-04&segments=branded`, getMetricsTimeseries.output);
    expect(body.points).toHaveLength(4);
    /** A rate's test between two days: the comparison fields of the rate figure, from the raw rows. */
    const move = (r: ReturnType<typeof rateOf>) => ({
      delta: r.delta,
      delta_ci95: r.delta_ci95,
      significant: r.significant,
      p_value: r.p_value,
      significant_fdr: r.significant_fdr,
    });
    const dayRate = (r: { value: number | null; numerator: number; denominator: number; ci95: Iv }) => ({
      value: r.value,
      numerator: r.numerator,
      denominator: r.denominator,
      ci95: r.ci95,
    });
    const dayMean = (m: { value: number | null; count: number; ci95: Iv }) => ({ value: m.value, count: m.count, ci95: m.ci95 });
    /** A day's figures over some prompts (all by default), with the move since the previous measured day's. */
    const dayFigures = (runId: string, since: { day: string; run: string } | null, prompts?: Set<string>) => {
      const c = raw([runId], undefined, prompts);
      const h = headlineOf(c, null);
      const b = since && raw([since.run], undefined, prompts);
      return {
        answers: c.answers,
        extracted_answers: c.extracted,
        visibility: dayRate(h.visibility),
        share_of_voice: dayRate(h.share_of_voice),
        average_position: dayMean(h.average_position),
        sentiment: dayMean(h.sentiment),
        source_share: { ...dayRate(h.source_share), null_reason: h.source_share.null_reason },
        change:
          since && b
            ? {
                since: since.day,
                visibility: move(rateOf(c.mentioned, c.extracted, [b.mentioned, b.extracted])),
                share_of_voice: move(rateOf(c.tracked, c.brands, [b.tracked, b.brands])),
              }
            : null,
      };
    };
    let since: { day: string; run: string } | null = null;
    for (const [i, point] of body.points.entries()) {
      if (point.state === 'no_run') throw new Error(`${point.day}: every day of the fixture has a run`);
      const measured = point.run_id !== E3;
      // The first measured day (E0) and the one still extracting (E3) carry none; E1 moves from E0, E2 from E1.
      const before = measured ? since : null;
      const head = { day: point.day, state: measured ? 'measured' : 'extraction_late', run_id: point.run_id };
      expectFigures(point, { ...head, ...dayFigures(point.run_id, before), segments: null }, body);
      // With segments=branded, the same day and each kind of prompt's figures from that kind's rows only.
      const segments = {
        branded: dayFigures(point.run_id, before, brandedPrompts),
        non_branded: dayFigures(point.run_id, before, otherPrompts),
      };
      expectFigures(split.points[i], { ...head, ...dayFigures(point.run_id, before), segments }, split);
      if (measured) since = { day: point.day, run: point.run_id };
    }
    expect(body.points.map((p) => (p.state === 'no_run' ? 'no_run' : (p.change?.since ?? null)))).toEqual([
      null,
      '2025-04-01',
      '2025-04-02',
      null,
    ]);
    expect(body.context.multiple_comparisons).toEqual({ method: 'benjamini-hochberg', q: 0.05, tests: testsOf(body) });
    expect(testsOf(body.points)).toBeGreaterThan(0);
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
      // No engine of this fixture declares its model.
      models: before ? [] : null,
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
    expectFigures(body.changes, expectedChanges(id));
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
