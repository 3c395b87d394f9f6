import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { z } from 'zod';
import { getMetricsTimeseries } from '#shared/reads/figures/timeseries.js';
import { excludesZero, newcombe, newcombeP } from '#shared/reads/stats.js';
import type { LocalApi } from '../../local/stack.js';
import { FIG_ANALYSIS, FIG_IDS, FIG_SECRET } from '../fixtures/figures.js';
import { call, expectServed, manifest, readerUrl, startTestApi } from '../support/api.js';

/**
 * The change each measured day of the daily series carries since the previous measured day of the window,
 * recomputed from the raw rows (answers and mentions of each point's run) on the demo and on the
 * hand-built fixture of test/fixtures/figures.ts: `since` is the previous measured point (days without a
 * run, and days not measured, skipped), delta the difference of the two days' rates, its interval and
 * p-value Newcombe's (method 10, the interval inverted; both held to their definitions in
 * figures-v2.test.ts), significant_fdr Benjamini–Hochberg at q = 0.05 over every p_value of the reply,
 * written out below. The first measured day of the window is not compared, whatever lies before it.
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

type Series = z.infer<typeof getMetricsTimeseries.output>;
type Point = Series['points'][number];
/** A point with a run (measured, or not yet or never extracted). */
type Ran = Exclude<Point, { state: 'no_run' }>;

async function series(analysis: string, qs: string, key: string): Promise<Series> {
  return expectServed(await call(api, `/analyses/${analysis}/metrics/timeseries?${qs}`, key), getMetricsTimeseries.output);
}

const EMPTY: RunRates = { extracted: 0, mentioned: 0, tracked: 0, brands: 0 };
interface RunRates {
  extracted: number;
  mentioned: number;
  tracked: number;
  brands: number;
}
/**
 * Each run's rates from its raw rows: extracted answers, those naming the tracked brand, its mentions, all
 * mentions; keyed by run, and by run and kind of prompt (`run|true` for branded prompts, as the store
 * classifies them).
 */
async function rawRates(analysis: string): Promise<Map<string, RunRates>> {
  const r = await db.query<{ run: string; branded: boolean; extracted: number; mentioned: number; tracked: number; brands: number }>(
    `SELECT x.run_id AS run, coalesce(p.branded, fig_branded_rule(p.text, fig_brand_names(p.analysis_id))) AS branded,
            count(*)::int AS extracted,
            count(*) FILTER (WHERE EXISTS (SELECT 1 FROM mentions m WHERE m.answer_id = x.id AND m.is_tracked))::int AS mentioned,
            coalesce(sum((SELECT count(*) FROM mentions m WHERE m.answer_id = x.id AND m.is_tracked)), 0)::int AS tracked,
            coalesce(sum((SELECT count(*) FROM mentions m WHERE m.answer_id = x.id)), 0)::int AS brands
       FROM answers x JOIN analyses a ON a.id = x.analysis_id JOIN prompts p ON p.id = x.prompt_id
      WHERE (a.slug = $1 OR a.id::text = $1) AND x.extraction_state = 'extracted'
      GROUP BY 1, 2`,
    [analysis],
  );
  const out = new Map<string, RunRates>();
  for (const x of r.rows) {
    out.set(`${x.run}|${x.branded}`, x);
    const run = out.get(x.run) ?? { ...EMPTY };
    out.set(x.run, {
      extracted: run.extracted + x.extracted,
      mentioned: run.mentioned + x.mentioned,
      tracked: run.tracked + x.tracked,
      brands: run.brands + x.brands,
    });
  }
  return out;
}

const r6 = (x: number) => {
  const r = Math.round(x * 1e6) / 1e6;
  return Object.is(r, -0) ? 0 : r;
};

/** A rate's move from (pk, pn) to (k, n), from the counts; nulls where either denominator is 0. */
function moveOf(k: number, n: number, pk: number, pn: number) {
  const both = n > 0 && pn > 0;
  const ci = both ? newcombe(k, n, pk, pn) : null;
  return {
    delta: both ? r6(k / n - pk / pn) : null,
    delta_ci95: ci,
    significant: both ? excludesZero(ci) : null,
    p_value: both ? r6(newcombeP(k, n, pk, pn) as number) : null,
  };
}

interface Tested {
  p_value: number | null;
  significant: boolean | null;
  significant_fdr: boolean | null;
}
/** Every figure of a reply that carries a test (a p_value), wherever it is. */
function testsIn(v: unknown, out: Tested[] = []): Tested[] {
  if (v === null || typeof v !== 'object') return out;
  if ('p_value' in v) out.push(v as Tested);
  for (const x of Object.values(v)) testsIn(x, out);
  return out;
}
/** Benjamini–Hochberg at q = 0.05, step-up: the largest p-value that is a discovery (−1: none). */
function bhThreshold(ps: number[]): number {
  const sorted = [...ps].sort((a, b) => a - b);
  let threshold = -1;
  sorted.forEach((p, i) => {
    if (p <= ((i + 1) * 0.05) / sorted.length) threshold = p;
  });
  return threshold;
}

type Figures = Pick<Ran, 'visibility' | 'share_of_voice' | 'change'>;
type Change = NonNullable<Ran['change']>;

/** One day's figures held to the raw rates of its run (`cur`), and its change to those of the previous measured day's. */
function expectDay(day: string, figures: Figures, cur: RunRates, before: { day: string; rates: RunRates } | null): Change | null {
  expect([day, figures.visibility.numerator, figures.visibility.denominator]).toEqual([day, cur.mentioned, cur.extracted]);
  expect([day, figures.share_of_voice.numerator, figures.share_of_voice.denominator]).toEqual([day, cur.tracked, cur.brands]);
  if (!before) {
    expect([day, figures.change]).toEqual([day, null]);
    return null;
  }
  const { significant_fdr: _v, ...visibility } = figures.change?.visibility ?? ({} as Record<string, unknown>);
  const { significant_fdr: _s, ...share } = figures.change?.share_of_voice ?? ({} as Record<string, unknown>);
  const b = before.rates;
  expect([day, figures.change?.since, visibility, share]).toEqual([
    day,
    before.day,
    moveOf(cur.mentioned, cur.extracted, b.mentioned, b.extracted),
    moveOf(cur.tracked, cur.brands, b.tracked, b.brands),
  ]);
  return figures.change as Change;
}

/**
 * Holds every point of a reply to the raw rows (and each of its segments, when asked for, to the raw rows
 * of that kind of prompt) and the reply's BH flags to its own p-values; returns the changes it checked
 * (non-null ones) so that a case can say what it covered.
 */
async function expectChanges(body: Series, analysis: string) {
  const rates = await rawRates(analysis);
  const checked: Array<{ day: string; change: Change }> = [];
  const segmentChanges: Change[] = [];
  let previous: Ran | null = null;
  for (const point of body.points) {
    if (point.state === 'no_run') {
      expect(point).not.toHaveProperty('change');
      continue;
    }
    if (point.state !== 'measured') {
      // A day not measured is neither compared nor the day a later one is compared with.
      expect([point.day, point.change]).toEqual([point.day, null]);
      for (const kind of Object.values(point.segments ?? {})) expect([point.day, kind.change]).toEqual([point.day, null]);
      continue;
    }
    const ratesOf = (run: string, key = run) => rates.get(key) ?? EMPTY;
    const before = previous && { day: previous.day, rates: ratesOf(previous.run_id) };
    const change = expectDay(point.day, point, ratesOf(point.run_id), before);
    if (change) checked.push({ day: point.day, change });
    expect(point.segments === null).toBe(body.segments === null);
    if (point.segments) {
      const { branded, non_branded } = point.segments;
      for (const [flag, kind] of [
        [true, branded],
        [false, non_branded],
      ] as const) {
        const prev = previous && { day: previous.day, rates: ratesOf(previous.run_id, `${previous.run_id}|${flag}`) };
        const c = expectDay(point.day, kind, ratesOf(point.run_id, `${point.run_id}|${flag}`), prev);
        if (c) segmentChanges.push(c);
      }
      // The two kinds' counts add up to the day's.
      for (const key of ['visibility', 'share_of_voice', 'source_share'] as const) {
        expect([
          point.day,
          key,
          branded[key].numerator + non_branded[key].numerator,
          branded[key].denominator + non_branded[key].denominator,
        ]).toEqual([point.day, key, point[key].numerator, point[key].denominator]);
      }
      expect([
        point.day,
        branded.answers + non_branded.answers,
        branded.average_position.count + non_branded.average_position.count,
      ]).toEqual([point.day, point.answers, point.average_position.count]);
    }
    previous = point;
  }

  const all = testsIn(body);
  const published = all.filter((t) => t.p_value !== null).map((t) => t.p_value as number);
  const threshold = bhThreshold(published);
  expect(body.context.multiple_comparisons).toEqual({ method: 'benjamini-hochberg', q: 0.05, tests: published.length });
  // The day-to-day tests are among those counted: every non-null p_value of the changes, the segments' included.
  const dayTests = [...checked.map((c) => c.change), ...segmentChanges]
    .flatMap((c) => [c.visibility, c.share_of_voice])
    .filter((t) => t.p_value !== null);
  expect(testsIn(body.points).filter((t) => t.p_value !== null)).toHaveLength(dayTests.length);
  expect(published.length).toBe(
    testsIn({ summary: body.summary, segments: body.segments }).filter((t) => t.p_value !== null).length + dayTests.length,
  );
  for (const t of all) {
    if (t.p_value === null) expect(t.significant_fdr).toBeNull();
    else expect(t.significant_fdr).toBe(t.p_value <= threshold && t.significant === true);
    if (t.significant_fdr === true) expect(t.significant).toBe(true);
  }
  return { checked, dayTests, segmentChanges };
}

const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe('each measured day carries its change since the previous measured day (get_metrics_timeseries)', () => {
  test('demo, 30d with segments: every change from the raw rows; the day tests join the reply’s correction', async () => {
    const analysis = manifest.analyses.collected;
    const body = await series(analysis, 'window=30d&segments=branded', manifest.keys.workspace);
    const measured = body.points.filter((p) => p.state === 'measured');
    const { checked, dayTests, segmentChanges } = await expectChanges(body, analysis);
    expect(checked).toHaveLength(measured.length - 1);
    expect(segmentChanges).toHaveLength(2 * (measured.length - 1));
    expect(dayTests.length).toBeGreaterThan(0);
    // The demo moves enough from day to day for some uncorrected flags; the correction keeps at most those.
    const flagged = dayTests.filter((t) => t.significant === true);
    expect(dayTests.filter((t) => t.significant_fdr === true).length).toBeLessThanOrEqual(flagged.length);
  });

  test('demo, 90d: days without a run in between are skipped, so a change may span several days', async () => {
    const analysis = manifest.analyses.collected;
    const body = await series(analysis, 'window=90d', manifest.keys.workspace);
    const { checked } = await expectChanges(body, analysis);
    expect(body.points.some((p) => p.state === 'no_run')).toBe(true);
    expect(checked.some((c) => c.change.since !== addDays(c.day, -1))).toBe(true);
  });

  test('demo, from/to: the first measured day of the window is not compared, though the day before it was measured', async () => {
    const analysis = manifest.analyses.collected;
    const [from, to] = [addDays(manifest.endDate, -12), addDays(manifest.endDate, -2)];
    const body = await series(analysis, `from=${from}&to=${to}`, manifest.keys.workspace);
    await expectChanges(body, analysis);
    expect(body.points[0]).toMatchObject({ day: from, state: 'measured', change: null });
    const wider = await series(analysis, `from=${addDays(from, -1)}&to=${to}`, manifest.keys.workspace);
    expect(wider.points[0]).toMatchObject({ day: addDays(from, -1), state: 'measured', change: null });
    expect(wider.points[1]).toMatchObject({ day: from, change: { since: addDays(from, -1) } });
  });

  test('demo, extraction late: the late day carries no change, and its answers by kind of prompt add up', async () => {
    const analysis = manifest.analyses.extraction_late;
    const body = await series(analysis, 'window=30d&segments=branded', manifest.keys.workspace);
    const late = body.points.filter((p): p is Ran => p.state === 'extraction_late');
    expect(late.length).toBeGreaterThan(0);
    await expectChanges(body, analysis);
    const collected = await db.query<{ run: string; branded: boolean; n: number }>(
      `SELECT x.run_id AS run, coalesce(p.branded, fig_branded_rule(p.text, fig_brand_names(p.analysis_id))) AS branded, count(*)::int AS n
         FROM answers x JOIN prompts p ON p.id = x.prompt_id WHERE x.run_id = ANY ($1::uuid[]) GROUP BY 1, 2`,
      [late.map((p) => p.run_id)],
    );
    const count = (run: string, branded: boolean) => collected.rows.find((r) => r.run === run && r.branded === branded)?.n ?? 0;
    for (const p of late) {
      // Nothing extracted yet: each kind shows its collected answers and no measure.
      expect([p.day, p.segments?.branded.answers, p.segments?.non_branded.answers]).toEqual([
        p.day,
        count(p.run_id, true),
        count(p.run_id, false),
      ]);
      expect([p.day, p.segments?.branded.visibility.value, p.segments?.non_branded.extracted_answers]).toEqual([p.day, null, 0]);
      expect((p.segments?.branded.answers ?? 0) + (p.segments?.non_branded.answers ?? 0)).toBe(p.answers);
    }
  });

  test('fixture, 14d: three measured days among days without a run; a day of two runs is its latest run’s', async () => {
    const body = await series(FIG_ANALYSIS, 'window=14d', FIG_SECRET);
    const { checked } = await expectChanges(body, FIG_IDS.analysis);
    // By hand: R1 (03-01) 0 of 6 name Fixo; R2 (03-08) 6 of 6; R4 (03-10, after R3 that day) 2 of 4.
    expect(checked.map((c) => [c.day, c.change.since, c.change.visibility.delta])).toEqual([
      ['2025-03-08', '2025-03-01', 1],
      ['2025-03-10', '2025-03-08', -0.5],
    ]);
    expect(checked[0]?.change.visibility.significant).toBe(true);
  });
});
