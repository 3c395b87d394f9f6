import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { z } from 'zod';
import { getRun } from '#shared/reads/catalog/runs.js';
import { listCompetitors } from '#shared/reads/figures/competitors.js';
import { listEngines } from '#shared/reads/figures/engines.js';
import { listGroups } from '#shared/reads/figures/groups.js';
import { getMetrics } from '#shared/reads/figures/metrics.js';
import { listSources } from '#shared/reads/figures/sources.js';
import { getMetricsTimeseries } from '#shared/reads/figures/timeseries.js';
import { meanFigure, rateFigure } from '#shared/reads/stats.js';
import type { LocalApi } from '../../local/stack.js';
import { FIG_ANALYSIS, FIG_IDS, FIG_SECRET } from '../fixtures/figures.js';
import { call, expectServed, manifest, readerUrl, startTestApi } from '../support/api.js';

/**
 * What figures v3 added, on the hand-built fixture of test/fixtures/figures.ts and on the demo: source
 * categories recomputed from the raw citations, the share of voice on the direct universe worked out by
 * hand, the models change of a comparison and of a run, the branded classification of each prompt, and
 * significant_fdr as Benjamini–Hochberg on the p-values each reply publishes. The p-values themselves are
 * recomputed from raw rows in figures-v2.test.ts.
 */

let api: LocalApi;
let db: pg.Client;
beforeAll(async () => {
  api = await startTestApi();
  db = new pg.Client({ connectionString: readerUrl() });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await api?.close();
});

const A = `/analyses/${FIG_ANALYSIS}`;
async function get<T extends z.ZodType>(path: string, schema: T, key = FIG_SECRET): Promise<z.infer<T>> {
  return expectServed(await call(api, path, key), schema);
}
const [, R1, R2, R3, R4] = FIG_IDS.runs;

interface Tested {
  p_value: number | null;
  significant: boolean | null;
  significant_fdr: boolean | null;
}
/** Every figure of a reply that carries a test, in document order. */
function testsIn(v: unknown, out: Tested[] = []): Tested[] {
  if (v === null || typeof v !== 'object') return out;
  if ('p_value' in v && 'significant_fdr' in v) out.push(v as Tested);
  for (const x of Object.values(v)) testsIn(x, out);
  return out;
}
/** Benjamini–Hochberg at q = 0.05 on the published p-values, as the docs state it; then never beyond significant. */
function expectBh(body: { context: { multiple_comparisons: { method: string; q: number; tests: number } } }) {
  const all = testsIn(body);
  const tested = all.filter((t) => t.p_value !== null);
  expect(body.context.multiple_comparisons).toEqual({ method: 'benjamini-hochberg', q: 0.05, tests: tested.length });
  const sorted = tested.map((t) => t.p_value as number).sort((a, b) => a - b);
  let threshold = -1;
  sorted.forEach((p, i) => {
    if (p <= ((i + 1) * 0.05) / sorted.length) threshold = p;
  });
  for (const t of all) {
    if (t.p_value === null) expect(t.significant_fdr).toBeNull();
    else expect(t.significant_fdr).toBe(t.p_value <= threshold && t.significant === true);
    if (t.significant_fdr === true) expect(t.significant).toBe(true);
  }
  return tested.length;
}

/** Citations of extracted answers of the runs, per domain, from the raw rows. */
async function citationsOf(runs: string[]): Promise<Map<string, number>> {
  const r = await db.query<{ domain: string; n: number }>(
    `SELECT c.domain, count(*)::int AS n FROM citations c JOIN answers a ON a.id = c.answer_id
      WHERE a.run_id = ANY ($1::uuid[]) AND a.extraction_state = 'extracted' GROUP BY c.domain`,
    [runs],
  );
  return new Map(r.rows.map((x) => [x.domain, x.n]));
}

describe('source categories (list_sources)', () => {
  test('7d: each domain in its category; the three shares add up to all citations, against R1', async () => {
    const body = await get(`${A}/sources?window=7d`, listSources.output);
    const owned = new Set(['fixo.com']);
    const competitor = new Set(['rival.com', 'rival.io', 'quiet.com']);
    const categoryOf = (d: string) => (owned.has(d) ? 'owned' : competitor.has(d) ? 'competitor' : 'other');
    const [cur, prev] = [await citationsOf([R2, R3, R4]), await citationsOf([R1])];
    const sum = (m: Map<string, number>, c?: string) => [...m].filter(([d]) => !c || categoryOf(d) === c).reduce((n, [, k]) => n + k, 0);
    // By hand: fixo.com 5, rival.com 3, g2.com 2 of 10; R1: g2.com 6 of 6.
    expect([sum(cur, 'owned'), sum(cur, 'competitor'), sum(cur, 'other'), sum(cur)]).toEqual([5, 3, 2, 10]);
    for (const item of body.items) expect([item.domain, item.category]).toEqual([item.domain, categoryOf(item.domain)]);
    for (const c of ['owned', 'competitor', 'other'] as const) {
      expect(body.categories[c]).toMatchObject({
        numerator: sum(cur, c),
        denominator: sum(cur),
        previous: { numerator: sum(prev, c), denominator: sum(prev) },
      });
    }
    const { owned: o, competitor: k, other: x } = body.categories;
    expect(o.numerator + k.numerator + x.numerator).toBe(o.denominator);
    // 5/10 against 0/6: Newcombe by hand excludes 0; the other two as well (3/10 vs 0/6, 2/10 vs 6/6).
    expect([o.value, o.previous?.value, o.significant]).toEqual([0.5, 0, true]);
    expect([k.value, x.value, x.previous?.value]).toEqual([0.3, 0.2, 1]);
    expectBh(body);
  });

  test('all: no comparison, so no test and no p-value', async () => {
    const body = await get(`${A}/sources?window=all`, listSources.output);
    expect(body.categories.owned).toMatchObject({ previous: null, p_value: null, significant_fdr: null });
    expect(expectBh(body)).toBe(0);
  });
});

describe('share of voice on the direct universe (get_metrics, get_metrics_timeseries)', () => {
  test('last-run: R4 against R3, by hand', async () => {
    const body = await get(`${A}/metrics`, getMetrics.output);
    // R4: Fixo 2, Rival 3 (direct) → 2/5; R3: Fixo 2, Nimbus 1 (discovered, left out) → 2/2.
    expect(body.metrics.share_of_voice_direct).toMatchObject({
      value: 0.4,
      numerator: 2,
      denominator: 5,
      previous: { value: 1, numerator: 2, denominator: 2 },
      delta: -0.6,
      null_reason: null,
    });
    // Rival and Quiet are configured; R4 names no brand beyond Fixo and Rival.
    expect(body.metrics.share_of_voice_universe).toEqual({ direct: 2, discovered: 0 });
    expect(body.metrics.share_of_voice).toMatchObject({ numerator: 2, denominator: 5 });
    expectBh(body);
  });

  test('7d: Nimbus is discovered; the share over all brands counts it, the direct one does not', async () => {
    const body = await get(`${A}/metrics?window=7d`, getMetrics.output);
    // R2: Fixo 6; R3: Fixo 2, Nimbus 1; R4: Fixo 2, Rival 3 → 10 of 13 direct, 10 of 14 overall; R1: Rival 6 → 0 of 6.
    expect(body.metrics.share_of_voice_direct).toMatchObject({
      numerator: 10,
      denominator: 13,
      previous: { numerator: 0, denominator: 6 },
    });
    expect(body.metrics.share_of_voice).toMatchObject({ numerator: 10, denominator: 14 });
    expect(body.metrics.share_of_voice_universe).toEqual({ direct: 2, discovered: 1 });
    const series = await get(`${A}/metrics/timeseries?window=7d`, getMetricsTimeseries.output);
    expect(series.summary.share_of_voice_direct).toEqual(body.metrics.share_of_voice_direct);
    expect(series.summary.share_of_voice_universe).toEqual(body.metrics.share_of_voice_universe);
    expectBh(series);
  });

  test('a window without runs: null with not_measured', async () => {
    const body = await get(`${A}/metrics?from=2024-01-01&to=2024-01-07`, getMetrics.output);
    expect(body.metrics.share_of_voice_direct).toMatchObject({ value: null, denominator: 0, null_reason: 'not_measured' });
    expect(body.metrics.share_of_voice_universe).toEqual({ direct: 2, discovered: 0 });
  });
});

describe('engine models', () => {
  test('a comparison across chatgpt’s switch to gpt-5 is not like for like; one without it is', async () => {
    const week = await get(`${A}/metrics?window=7d`, getMetrics.output);
    expect(week.context.comparison?.changes).toContain('models');
    expect(week.context.comparison?.comparable).toBe(false);
    const last = await get(`${A}/metrics`, getMetrics.output);
    expect(last.context.comparison?.changes).not.toContain('models');
  });

  test('the run read names the engine, the previous model and the current one', async () => {
    const r2 = await get(`${A}/runs/${R2}`, getRun.output);
    expect(r2.changes?.models).toEqual([{ engine: { key: 'chatgpt', name: 'ChatGPT' }, previous: 'gpt-4o', current: 'gpt-5' }]);
    const r3 = await get(`${A}/runs/${R3}`, getRun.output);
    expect(r3.changes?.models).toEqual([]);
    const r0 = await get(`${A}/runs/${FIG_IDS.runs[0]}`, getRun.output);
    expect(r0.changes?.models).toBeNull();
    // The run read corrects its visibility changes together too.
    const tested = testsIn(r2.changes);
    expect(tested.filter((t) => t.significant_fdr === true && t.significant !== true)).toEqual([]);
  });
});

describe('branded prompts: the pipeline wins, else the rule', () => {
  test('on the fixture, as the store classifies them for the reads that list prompts', async () => {
    const r = await db.query<{ id: string; branded: boolean; source: string }>(
      `SELECT p.id, coalesce(p.branded, fig_branded_rule(p.text, fig_brand_names(p.analysis_id))) AS branded,
              CASE WHEN p.branded IS NULL THEN 'rule' ELSE 'pipeline' END AS source
         FROM prompts p WHERE p.analysis_id = $1 ORDER BY p.created_at`,
      [FIG_IDS.analysis],
    );
    expect(r.rows).toEqual([
      { id: FIG_IDS.p1, branded: false, source: 'rule' }, // "Best tool for fixing things?": fixing is not Fixo
      { id: FIG_IDS.p2, branded: true, source: 'rule' }, // "Fixo or Rival?"
      { id: FIG_IDS.p3, branded: false, source: 'pipeline' }, // "Is Fixo any good?": the pipeline said no
    ]);
  });

  test('the prompt catalogue and the group prompts serve each prompt as classified', async () => {
    const expected = {
      [FIG_IDS.p1]: { branded: false, branded_source: 'rule' },
      [FIG_IDS.p2]: { branded: true, branded_source: 'rule' },
      [FIG_IDS.p3]: { branded: false, branded_source: 'pipeline' },
    };
    const catalogue = (await call(api, `${A}/prompts`, FIG_SECRET)).body;
    expect(Object.fromEntries(catalogue.items.map((p: any) => [p.id, { branded: p.branded, branded_source: p.branded_source }]))).toEqual(
      expected,
    );
    const served: Record<string, unknown> = {};
    // Alpha holds P1 and P2; P3 is in no group.
    for (const g of [FIG_IDS.alpha, 'none']) {
      const page = (await call(api, `${A}/groups/${g}/prompts?window=all`, FIG_SECRET)).body;
      for (const item of page.items ?? [])
        served[item.prompt.id] = { branded: item.prompt.branded, branded_source: item.prompt.branded_source };
    }
    expect(served).toEqual(expected);
  });

  test('on the demo: an alias counts, and both kinds of prompt exist', async () => {
    const r = await db.query<{ text: string; branded: boolean; source: string }>(
      `SELECT p.text, coalesce(p.branded, fig_branded_rule(p.text, fig_brand_names(p.analysis_id))) AS branded,
              CASE WHEN p.branded IS NULL THEN 'rule' ELSE 'pipeline' END AS source
         FROM prompts p WHERE p.analysis_id = $1`,
      [manifest.analysisIds.collected],
    );
    const by = new Map(r.rows.map((x) => [x.text, x]));
    expect(by.get('Acme vs Initech: which one should a startup choose?')).toMatchObject({ branded: true, source: 'rule' });
    expect(by.get('Is Acme worth the price for a team of ten?')).toMatchObject({ branded: true, source: 'pipeline' });
    expect(by.get('Best alternatives to Hooli for task tracking')).toMatchObject({ branded: false, source: 'pipeline' });
    expect(r.rows.filter((x) => !x.branded).length).toBeGreaterThan(10);
    const names = await db.query<{ n: string[] }>('SELECT fig_brand_names($1) AS n', [manifest.analysisIds.collected]);
    expect(names.rows[0]?.n).toEqual(['Acme', 'Acme Cloud', 'Acme PM']);
  });
});

describe('segments: the figures over branded and non-branded prompts (segments=branded)', () => {
  test('last-run, by hand: P2 is branded by the rule, P3 is not because the pipeline said so', async () => {
    const body = await get(`${A}/metrics?segments=branded`, getMetrics.output);
    // R4: a42 (chatgpt, P2) names Fixo → 1 of 1; a41 (P1) names it, a43 (P1) and a44 (P3) do not → 1 of 3.
    // R3: a32 (P2) names no brand, a34 (P2) failed extraction → 0 of 1; a31, a33 (P1) name Fixo → 2 of 2.
    expect(body.segments?.branded.visibility).toMatchObject({ numerator: 1, denominator: 1, previous: { numerator: 0, denominator: 1 } });
    expect(body.segments?.non_branded.visibility).toMatchObject({
      numerator: 1,
      denominator: 3,
      previous: { numerator: 2, denominator: 2 },
    });
    expect(body.metrics.visibility).toMatchObject({ numerator: 2, denominator: 4 });
    // Mentions: a42 Rival, Fixo → 1 of 2; a41 Fixo, Rival and a43 Rival → 1 of 3.
    expect(body.segments?.branded.share_of_voice).toMatchObject({ numerator: 1, denominator: 2 });
    expect(body.segments?.non_branded.share_of_voice).toMatchObject({ numerator: 1, denominator: 3 });
    expect([body.segments?.branded.answers, body.segments?.non_branded.answers]).toEqual([1, 3]);
    // On the direct universe: R4 names only Fixo and Rival (direct), so the same 1 of 2 and 1 of 3. R3's
    // branded answers name no brand (no previous share); its non-branded ones Fixo twice and Nimbus
    // (discovered, left out) → 2 of 2.
    expect(body.segments?.branded.share_of_voice_direct).toMatchObject({
      value: 0.5,
      numerator: 1,
      denominator: 2,
      previous: { value: null, numerator: 0, denominator: 0 },
      delta: null,
      null_reason: null,
    });
    expect(body.segments?.non_branded.share_of_voice_direct).toMatchObject({
      numerator: 1,
      denominator: 3,
      previous: { value: 1, numerator: 2, denominator: 2 },
    });
    expect(body.segments?.branded.share_of_voice_universe).toEqual({ direct: 2, discovered: 0 });
    expect(body.segments?.non_branded.share_of_voice_universe).toEqual({ direct: 2, discovered: 0 });
    expectBh(body);
    const plain = await get(`${A}/metrics`, getMetrics.output);
    expect(plain.segments).toBeNull();
    expect(plain.metrics).toEqual(body.metrics);
  });

  test('a value segments does not take is refused', async () => {
    const reply = await call(api, `${A}/metrics?segments=yes`, FIG_SECRET);
    expect([reply.status, reply.body.error.code]).toEqual([422, 'invalid_request']);
  });
});

/** Counts of one brand over some answers: mentions, answers naming it, its first positions. */
interface BrandCounts {
  mentions: number;
  answers: number;
  sum: number;
  sq: number;
}
/** One kind of prompt's answers in one period, from the raw rows: the brands named, all mentions, extracted answers. */
interface Slice {
  brands: Map<string, BrandCounts>;
  mentions: number;
  extracted: number;
}
type Kind = 'branded' | 'non_branded';
/** A period of a window as the reply states it: its run for a run window, else its days. */
type PeriodOf = { run: string } | { from: string; to: string };

/** The two periods of a figure reply as its context states them: the window's, and its comparison's (null: none). */
function periodsOf(body: { context: z.infer<typeof getMetrics.output>['context'] }): [PeriodOf, PeriodOf | null] {
  const { window, run, comparison } = body.context;
  const cur: PeriodOf = run ? { run: run.id } : { from: window.first_day as string, to: window.last_day as string };
  const prev: PeriodOf | null = comparison
    ? comparison.run
      ? { run: comparison.run.id }
      : { from: comparison.first_day, to: comparison.last_day }
    : null;
  return [cur, prev];
}

/**
 * Each kind of prompt's slice of one period, from the raw answers, mentions and prompts: the finished runs
 * of the period, their extracted answers, each brand named as the competitors read names it (the tracked
 * brand by its configured name, a direct competitor by its configured name, any other as named), counted
 * once per answer at its first position; a prompt's kind as the store classifies it.
 */
async function rawSlices(analysisId: string, period: PeriodOf): Promise<Record<Kind, Slice>> {
  const r = await db.query<{ branded: boolean; answer: string; brand: string | null; position: number | null }>(
    `WITH k AS MATERIALIZED (
       SELECT p.id, coalesce(p.branded, fig_branded_rule(p.text, fig_brand_names(p.analysis_id))) AS branded
         FROM prompts p WHERE p.analysis_id = $1
     )
     SELECT k.branded, x.id AS answer, CASE WHEN m.is_tracked THEN b.name ELSE coalesce(c.name, m.brand_name) END AS brand, m.position
       FROM runs r
       JOIN answers x ON x.run_id = r.id AND x.extraction_state = 'extracted'
       JOIN k ON k.id = x.prompt_id
       JOIN analyses a ON a.id = r.analysis_id
       JOIN brands b ON b.id = a.brand_id
       LEFT JOIN mentions m ON m.answer_id = x.id
       LEFT JOIN competitors c ON c.id = m.competitor_id
      WHERE r.analysis_id = $1 AND r.state = 'finished'
        AND ($2::uuid IS NULL OR r.id = $2) AND ($3::date IS NULL OR (r.started_at AT TIME ZONE 'UTC')::date BETWEEN $3 AND $4)`,
    'run' in period ? [analysisId, period.run, null, null] : [analysisId, null, period.from, period.to],
  );
  const out: Record<Kind, Slice & { answers: Set<string>; first: Map<string, { n: number; pos: number }> }> = {
    branded: { brands: new Map(), mentions: 0, extracted: 0, answers: new Set(), first: new Map() },
    non_branded: { brands: new Map(), mentions: 0, extracted: 0, answers: new Set(), first: new Map() },
  };
  for (const row of r.rows) {
    const s = out[row.branded ? 'branded' : 'non_branded'];
    s.answers.add(row.answer);
    if (row.brand === null || row.position === null) continue;
    s.mentions += 1;
    const key = `${row.answer}\u0000${row.brand}`;
    const f = s.first.get(key) ?? { n: 0, pos: row.position };
    s.first.set(key, { n: f.n + 1, pos: Math.min(f.pos, row.position) });
  }
  for (const s of Object.values(out)) {
    s.extracted = s.answers.size;
    for (const [key, f] of s.first) {
      const brand = key.split('\u0000')[1] as string;
      const c = s.brands.get(brand) ?? { mentions: 0, answers: 0, sum: 0, sq: 0 };
      s.brands.set(brand, { mentions: c.mentions + f.n, answers: c.answers + 1, sum: c.sum + f.pos, sq: c.sq + f.pos * f.pos });
    }
  }
  return { branded: out.branded, non_branded: out.non_branded };
}

/** Ranks sharing ties (1, 2, 2, 4) among the brands a slice names, and in the window the always-ranked ones at 0. */
function rankIn(slice: Slice, name: string, alwaysRanked: string[] | null): number | null {
  if (slice.mentions === 0) return null;
  const counts = new Map([...slice.brands].filter(([, c]) => c.mentions > 0).map(([b, c]) => [b, c.mentions]));
  for (const b of alwaysRanked ?? []) if (!counts.has(b)) counts.set(b, 0);
  const mine = counts.get(name);
  if (mine === undefined) return null;
  return 1 + [...counts.values()].filter((n) => n > mine).length;
}

/** A brand's figures over one kind of prompt, recomputed from the raw slices of the two periods. */
function expectedFigures(name: string, cur: Slice, prev: Slice | null, alwaysRanked: string[]) {
  const c = cur.brands.get(name) ?? { mentions: 0, answers: 0, sum: 0, sq: 0 };
  const p = prev ? (prev.brands.get(name) ?? { mentions: 0, answers: 0, sum: 0, sq: 0 }) : null;
  return {
    rank: rankIn(cur, name, alwaysRanked),
    previous_rank: prev ? rankIn(prev, name, null) : null,
    mentions: c.mentions,
    share_of_voice: rateFigure(c.mentions, cur.mentions, p && prev ? { k: p.mentions, n: prev.mentions } : null),
    visibility: rateFigure(c.answers, cur.extracted, p && prev ? { k: p.answers, n: prev.extracted } : null),
    average_position: meanFigure({ sum: c.sum, sq: c.sq, n: c.answers }, p ? { sum: p.sum, sq: p.sq, n: p.answers } : null),
  };
}

/** A reply's figures without significant_fdr, which depends on every test of the reply. */
function withoutFdr<T>(v: T): T {
  return JSON.parse(JSON.stringify(v, (k, x) => (k === 'significant_fdr' ? undefined : x)));
}

describe('the direct share of voice per kind of prompt (get_metrics, get_metrics_timeseries; segments=branded)', () => {
  /** Each kind's direct share of the metrics and the series' summary, recomputed from the raw rows, and the two adding up to the pooled one. */
  async function expectDirectFromRaw(at: string, analysisId: string, query: string, key: string) {
    const body = await get(`${at}/metrics?${query}&segments=branded`, getMetrics.output, key);
    const names = await db.query<{ tracked: string; direct: string[] }>(
      `SELECT b.name AS tracked, coalesce((SELECT array_agg(c.name) FROM competitors c WHERE c.analysis_id = a.id), '{}') AS direct
         FROM analyses a JOIN brands b ON b.id = a.brand_id WHERE a.id = $1`,
      [analysisId],
    );
    const { tracked, direct } = names.rows[0] ?? { tracked: '', direct: [] };
    const [curPeriod, prevPeriod] = periodsOf(body);
    const cur = await rawSlices(analysisId, curPeriod);
    const prev = prevPeriod ? await rawSlices(analysisId, prevPeriod) : null;
    const mentionsOf = (slice: Slice, names: string[]) => names.reduce((n, b) => n + (slice.brands.get(b)?.mentions ?? 0), 0);
    const shareOf = (slice: Slice) => ({ k: mentionsOf(slice, [tracked]), n: mentionsOf(slice, [tracked, ...direct]) });
    const pooled = body.metrics.share_of_voice_direct;
    const parts = [];
    for (const kind of ['branded', 'non_branded'] as const) {
      const c = shareOf(cur[kind]);
      const p = prev ? shareOf(prev[kind]) : null;
      const figure = body.segments?.[kind];
      if (!figure) throw new Error(`segments.${kind} missing`);
      const reason = cur[kind].extracted === 0 ? 'not_measured' : c.n === 0 ? 'no_mentions' : null;
      expect([kind, withoutFdr(figure.share_of_voice_direct)]).toEqual([
        kind,
        withoutFdr({ ...rateFigure(c.k, c.n, p), null_reason: reason }),
      ]);
      const discovered = [...cur[kind].brands].filter(([b, x]) => x.mentions > 0 && b !== tracked && !direct.includes(b)).length;
      expect([kind, figure.share_of_voice_universe]).toEqual([kind, { direct: direct.length, discovered }]);
      parts.push(figure.share_of_voice_direct);
    }
    const [b, n] = parts as [typeof pooled, typeof pooled];
    expect([b.numerator + n.numerator, b.denominator + n.denominator]).toEqual([pooled.numerator, pooled.denominator]);
    if (body.context.window.name !== 'last-run') {
      // The series' summary is the same window's headline (the series refuses last-run).
      const series = await get(`${at}/metrics/timeseries?${query}&segments=branded`, getMetricsTimeseries.output, key);
      expect(withoutFdr(series.segments)).toEqual(withoutFdr(body.segments));
    }
    expectBh(body);
    return body;
  }

  test('the fixture at 7d and all, from the raw rows', async () => {
    const week = await expectDirectFromRaw(A, FIG_IDS.analysis, 'window=7d', FIG_SECRET);
    expect(week.segments?.non_branded.share_of_voice_universe.discovered).toBe(1);
    await expectDirectFromRaw(A, FIG_IDS.analysis, 'window=all', FIG_SECRET);
  });

  test('on the demo (whole months and edge days), from the raw rows', async () => {
    const at = `/analyses/${manifest.analyses.collected}`;
    for (const query of ['window=30d', 'window=90d', 'window=last-run']) {
      const body = await expectDirectFromRaw(at, manifest.analysisIds.collected, query, manifest.keys.workspace);
      for (const kind of ['branded', 'non_branded'] as const)
        expect([query, kind, body.segments?.[kind].share_of_voice_direct.numerator]).not.toEqual([query, kind, 0]);
    }
  });
});

describe('competitors per kind of prompt (list_competitors, segments=branded)', () => {
  /** Every listed brand and the tracked one, recomputed from the raw rows, and the two kinds adding up to the pooled figures. */
  async function expectSegmentsFromRaw(at: string, analysisId: string, query: string, key: string) {
    const body = await get(`${at}/competitors?${query}&segments=branded`, listCompetitors.output, key);
    const plain = await get(`${at}/competitors?${query}`, listCompetitors.output, key);
    // The list, its order and the pooled figures are those of the reply without segments; no segments there.
    expect(withoutFdr(body.items.map(({ segments, ...rest }) => rest))).toEqual(
      withoutFdr(plain.items.map(({ segments, ...rest }) => rest)),
    );
    const { segments: noneTracked, ...plainTracked } = plain.tracked;
    expect(withoutFdr({ ...body.tracked, segments: null })).toEqual(withoutFdr({ ...plainTracked, segments: null }));
    expect([noneTracked, ...plain.items.map((i) => i.segments)].every((x) => x === null)).toBe(true);

    const [curPeriod, prevPeriod] = periodsOf(body);
    const cur = await rawSlices(analysisId, curPeriod);
    const prev = prevPeriod ? await rawSlices(analysisId, prevPeriod) : null;
    const alwaysRanked = [body.tracked.name, ...body.items.filter((i) => i.kind === 'direct').map((i) => i.name)];
    const brands = [{ ...body.tracked, kind: 'tracked' }, ...body.items];
    for (const item of brands) {
      for (const kind of ['branded', 'non_branded'] as const) {
        const expected = expectedFigures(item.name, cur[kind], prev?.[kind] ?? null, alwaysRanked);
        expect([item.name, kind, withoutFdr(item.segments?.[kind])]).toEqual([item.name, kind, withoutFdr(expected)]);
      }
      const [b, n] = [item.segments?.branded, item.segments?.non_branded];
      if (!b || !n) throw new Error('segments missing');
      expect(b.mentions + n.mentions).toBe(item.mentions);
      for (const rate of ['share_of_voice', 'visibility'] as const) {
        expect(b[rate].numerator + n[rate].numerator).toBe(item[rate].numerator);
        expect(b[rate].denominator + n[rate].denominator).toBe(item[rate].denominator);
      }
      expect(b.average_position.count + n.average_position.count).toBe(item.average_position.count);
    }
    expectBh(body);
    return { body, cur };
  }

  test('last-run on the fixture, by hand: R4 against R3, P2 branded by the rule', async () => {
    const { body } = await expectSegmentsFromRaw(A, FIG_IDS.analysis, 'window=last-run', FIG_SECRET);
    // R4 branded: a42 (P2) Rival@1, Fixo@2. Non-branded: a41 (P1) Fixo@1, Rival@2; a43 (P1) Rival@1; a44 (P3) none.
    const fixo = body.tracked.segments;
    expect(fixo?.branded).toMatchObject({
      rank: 1,
      mentions: 1,
      share_of_voice: { numerator: 1, denominator: 2 },
      visibility: { numerator: 1, denominator: 1 },
      average_position: { value: 2, count: 1 },
    });
    expect(fixo?.non_branded).toMatchObject({
      rank: 2,
      mentions: 1,
      share_of_voice: { numerator: 1, denominator: 3 },
      visibility: { numerator: 1, denominator: 3 },
      // R3 non-branded: a31, a33 (P1) name Fixo, a33 Nimbus too; R3 branded names no brand: no previous rank.
      previous_rank: 1,
    });
    expect(fixo?.branded.previous_rank).toBeNull();
    const rival = body.items.find((i) => i.name === 'Rival');
    expect(rival?.segments?.non_branded).toMatchObject({ rank: 1, mentions: 2, visibility: { numerator: 2, denominator: 3 } });
    // Nimbus, named in R3 only, is not listed in R4; Quiet is listed at 0 and ranks after the brands named.
    expect(body.items.find((i) => i.name === 'Quiet')?.segments?.branded).toMatchObject({ rank: 3, mentions: 0 });
  });

  test('7d and all on the fixture, from the raw rows', async () => {
    await expectSegmentsFromRaw(A, FIG_IDS.analysis, 'window=7d', FIG_SECRET);
    await expectSegmentsFromRaw(A, FIG_IDS.analysis, 'window=all', FIG_SECRET);
  });

  test('on the demo (whole months and edge days), both kinds of prompt name brands', async () => {
    const at = `/analyses/${manifest.analyses.collected}`;
    for (const query of ['window=30d', 'window=90d', 'window=last-run']) {
      const { body, cur } = await expectSegmentsFromRaw(at, manifest.analysisIds.collected, query, manifest.keys.workspace);
      expect([cur.branded.mentions > 0, cur.non_branded.mentions > 0]).toEqual([true, true]);
      expect(body.items.length).toBeGreaterThan(2);
    }
  });
});

describe('the demo gives every new field a value', () => {
  const at = `/analyses/${manifest.analyses.collected}`;
  const key = () => manifest.keys.workspace;

  test('sources: all three categories cited; metrics: a direct share; engines and competitors corrected', async () => {
    const sources = await get(`${at}/sources?window=30d`, listSources.output, key());
    for (const c of ['owned', 'competitor', 'other'] as const) expect(sources.categories[c].numerator).toBeGreaterThan(0);
    expect(new Set(sources.items.map((i) => i.category))).toEqual(new Set(['owned', 'competitor', 'other']));
    const metrics = await get(`${at}/metrics?window=30d`, getMetrics.output, key());
    expect(metrics.metrics.share_of_voice_direct.value).not.toBeNull();
    expect(metrics.metrics.share_of_voice_universe).toEqual({ direct: 4, discovered: 4 });
    for (const body of [
      sources,
      metrics,
      await get(`${at}/engines?window=30d`, listEngines.output, key()),
      await get(`${at}/competitors?window=30d`, listCompetitors.output, key()),
      await get(`${at}/groups?window=30d`, listGroups.output, key()),
    ])
      expect(expectBh(body)).toBeGreaterThan(0);
  });

  test('models: chatgpt switched to gpt-5 four days before the end', async () => {
    const week = await get(`${at}/metrics?window=7d`, getMetrics.output, key());
    expect(week.context.comparison?.changes).toContain('models');
    const runs = await db.query<{ id: string }>(
      `SELECT r.id FROM runs r JOIN run_engines e ON e.run_id = r.id AND e.engine = 'chatgpt' AND e.model = 'gpt-5'
        WHERE r.analysis_id = $1 AND r.state = 'finished' ORDER BY r.started_at LIMIT 1`,
      [manifest.analysisIds.collected],
    );
    const first = await get(`${at}/runs/${runs.rows[0]?.id}`, getRun.output, key());
    expect(first.changes?.models).toEqual([{ engine: { key: 'chatgpt', name: 'ChatGPT' }, previous: 'gpt-4o', current: 'gpt-5' }]);
  });

  test('no demo event lies in the future', async () => {
    const r = await db.query<{ latest: Date }>(
      `SELECT greatest((SELECT max(greatest(started_at, collected_at, finished_at)) FROM runs),
                       (SELECT max(captured_at) FROM answers)) AS latest`,
    );
    expect(r.rows[0]?.latest.getTime()).toBeLessThanOrEqual(Date.now());
  });
});
