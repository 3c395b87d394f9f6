import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { z } from 'zod';
import { listCompetitors } from '#shared/reads/figures/competitors.js';
import { listEngines } from '#shared/reads/figures/engines.js';
import { listGroupPrompts, listGroups } from '#shared/reads/figures/groups.js';
import { getMetrics } from '#shared/reads/figures/metrics.js';
import { listSources } from '#shared/reads/figures/sources.js';
import { getMetricsTimeseries } from '#shared/reads/figures/timeseries.js';
import type { LocalApi } from '../../local/stack.js';
import { FIG_ANALYSIS, FIG_IDS, FIG_NOOWNED, FIG_SECRET } from '../fixtures/figures.js';
import { call, expectError, expectServed, startTestApi } from '../support/api.js';

/**
 * Every expected number below was computed by hand from the fixture described in
 * test/fixtures/figures.ts. Wilson intervals: 95%, z = 1.959964,
 * centre = (p + z²/2n) / (1 + z²/n), half-width = z/(1 + z²/n) · √(p(1−p)/n + z²/4n²), rounded to 6 decimals
 * (computed independently with a calculator, not with the service's code).
 */

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const A = `/analyses/${FIG_ANALYSIS}`;
/**
 * The fields figures v3 added beside the ones this file checks (p-values, corrected significance, the
 * share of voice on the direct universe, source categories, segments): checked against the raw rows in
 * figures-v3.test.ts. Left out here, so that every field below is shown to keep its value.
 */
const V3_FIELDS = new Set([
  'p_value',
  'significant_fdr',
  'multiple_comparisons',
  'share_of_voice_direct',
  'share_of_voice_universe',
  'category',
  'categories',
  'segments',
]);
function withoutV3(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutV3);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !V3_FIELDS.has(k))
      .map(([k, x]) => [k, withoutV3(x)]),
  );
}
async function get<T extends z.ZodType>(path: string, schema: T): Promise<z.infer<T>> {
  return withoutV3(await expectServed(await call(api, path, FIG_SECRET), schema)) as z.infer<T>;
}
const [R0, R1, R2, R3, R4] = FIG_IDS.runs;
void R0;
void R1;
void R2;

describe('metrics (get_metrics)', () => {
  test('last-run: R4 against R3', async () => {
    const body = await get(`${A}/metrics`, getMetrics.output);
    expect(body.context).toEqual({
      state: 'measured',
      extraction_late: false,
      window: { name: 'last-run', first_day: '2025-03-10', last_day: '2025-03-10', days: 1 },
      comparison: {
        first_day: '2025-03-10',
        last_day: '2025-03-10',
        run: {
          id: R3,
          state: 'finished',
          started_at: '2025-03-10T06:00:00.000Z',
          collected_at: '2025-03-10T06:40:00.000Z',
          finished_at: '2025-03-10T07:00:00.000Z',
        },
        // R3 collected answers to P1 and P2 only (P3 failed on both engines); R4 to P1, P2 and P3.
        comparable: false,
        changes: ['prompts'],
      },
      run: {
        id: R4,
        state: 'finished',
        started_at: '2025-03-10T14:00:00.000Z',
        collected_at: '2025-03-10T14:40:00.000Z',
        finished_at: '2025-03-10T15:00:00.000Z',
      },
      measured_at: '2025-03-10T15:00:00.000Z',
      recipes: ['fx-v2'],
      coverage: [
        // R4: chatgpt answered P1, P2 (P3 not collected); perplexity P1, P3 (P2 not collected).
        { engine: { key: 'chatgpt', name: 'ChatGPT' }, expected: 3, collected: 2, extracted: 2, failed: 1 },
        { engine: { key: 'perplexity', name: 'Perplexity' }, expected: 3, collected: 2, extracted: 2, failed: 1 },
      ],
    });
    expect(body.metrics).toEqual({
      answers: 4,
      extracted_answers: 4,
      // R4: a41, a42 name Fixo → 2/4 = 0.5; R3: a31, a33 of 3 extracted (a34 failed extraction) → 2/3.
      visibility: {
        value: 0.5,
        numerator: 2,
        denominator: 4,
        ci95: { low: 0.150039, high: 0.849961 },
        previous: { value: 0.666667, numerator: 2, denominator: 3, ci95: { low: 0.20766, high: 0.938508 } },
        delta: -0.166667, // 0.5 − 0.666667
        // Newcombe: −0.166667 − √((0.5 − 0.150039)² + (0.938508 − 0.666667)²), −0.166667 + √((0.849961 − 0.5)² + (0.666667 − 0.20766)²)
        delta_ci95: { low: -0.609804, high: 0.410534 },
        significant: false,
      },
      // R4 mentions: Fixo 2, Rival 3 → 2/5 = 0.4; R3: Fixo 2, Nimbus 1 → 2/3.
      share_of_voice: {
        value: 0.4,
        numerator: 2,
        denominator: 5,
        ci95: { low: 0.117621, high: 0.769276 },
        previous: { value: 0.666667, numerator: 2, denominator: 3, ci95: { low: 0.20766, high: 0.938508 } },
        delta: -0.266667, // 0.4 − 0.666667
        delta_ci95: { low: -0.658631, high: 0.322445 },
        significant: false,
      },
      // positions 1 (a41) and 2 (a42) → 1.5 ± t(1, 0.975) · s/√2 = 12.706205 · 0.5; R3: 1 and 1 → 1, zero variance.
      // Welch: se² = 0.5²/2 + 0 = 0.25, df = 1 → 0.5 ± 6.353102.
      average_position: {
        value: 1.5,
        count: 2,
        ci95: { low: -4.853102, high: 7.853102 },
        previous: { value: 1, count: 2, ci95: { low: 1, high: 1 } },
        delta: 0.5,
        delta_ci95: { low: -5.853102, high: 6.853102 },
        significant: false,
      },
      // scored: 0.5 (a42 unscored) → 0.5, one value, no interval; R3: (0.2 − 0.4)/2 = −0.1 ± 12.706205 · 0.3; delta 0.6.
      sentiment: {
        value: 0.5,
        count: 1,
        ci95: null,
        previous: { value: -0.1, count: 2, ci95: { low: -3.911861, high: 3.711861 } },
        delta: 0.6,
        delta_ci95: null,
        significant: null,
      },
      // R4 cites nothing → null, no_citations; R3: fixo.com 2 of 4 citations = 0.5.
      source_share: {
        value: null,
        numerator: 0,
        denominator: 0,
        ci95: null,
        previous: { value: 0.5, numerator: 2, denominator: 4, ci95: { low: 0.150039, high: 0.849961 } },
        delta: null,
        delta_ci95: null,
        significant: null,
        null_reason: 'no_citations',
      },
    });
  });

  test('7d: R2+R3+R4 against R1; a real change and a measured zero', async () => {
    const body = await get(`${A}/metrics?window=7d`, getMetrics.output);
    expect(body.context.window).toEqual({ name: '7d', first_day: '2025-03-04', last_day: '2025-03-10', days: 7 });
    // R1 served recipe fx-v1, R2-R4 fx-v2; chatgpt answered with gpt-4o in R1, gpt-5 from R2; engines and
    // prompts (P1-P3 on both) are the same.
    expect(body.context.comparison).toEqual({
      first_day: '2025-02-25',
      last_day: '2025-03-03',
      run: null,
      comparable: false,
      changes: ['recipes', 'models'],
    });
    expect(body.context.run).toBeNull();
    expect(body.context.coverage).toEqual([
      // expected 3+3+3; collected 3+2+2; extracted 3+2+2 / 3+1+2; failed 0+1+1
      { engine: { key: 'chatgpt', name: 'ChatGPT' }, expected: 9, collected: 7, extracted: 7, failed: 2 },
      { engine: { key: 'perplexity', name: 'Perplexity' }, expected: 9, collected: 7, extracted: 6, failed: 2 },
    ]);
    expect(body.metrics).toEqual({
      answers: 14, // 6 + 4 + 4
      extracted_answers: 13, // 6 + 3 + 4
      // 6 + 2 + 2 = 10 of 13 = 0.769231; R1: 0 of 6 → intervals [0.497436, 0.918205] vs [0, 0.390334] do not overlap.
      visibility: {
        value: 0.769231,
        numerator: 10,
        denominator: 13,
        ci95: { low: 0.497436, high: 0.918205 },
        previous: { value: 0, numerator: 0, denominator: 6, ci95: { low: 0, high: 0.390334 } },
        delta: 0.769231,
        delta_ci95: { low: 0.293591, high: 0.918205 },
        significant: true,
      },
      // Fixo 10 of 6 + 3 + 5 = 14 mentions = 0.714286; R1: 0 of 6 (Rival only).
      share_of_voice: {
        value: 0.714286,
        numerator: 10,
        denominator: 14,
        ci95: { low: 0.453509, high: 0.882786 },
        previous: { value: 0, numerator: 0, denominator: 6, ci95: { low: 0, high: 0.390334 } },
        delta: 0.714286,
        delta_ci95: { low: 0.244855, high: 0.882786 },
        significant: true,
      },
      // (6·1 + 1 + 1 + 1 + 2) / 10 = 1.1, s² = 0.1 → ± t(9) · √(0.1/10) = 2.262157 · 0.1; R1 never names Fixo → previous null.
      average_position: {
        value: 1.1,
        count: 10,
        ci95: { low: 0.873784, high: 1.326216 },
        previous: { value: null, count: 0, ci95: null },
        delta: null,
        delta_ci95: null,
        significant: null,
      },
      // (6·0.3 + 0.2 − 0.4 + 0.5) / 9 = 2.1/9 = 0.233333, t(8) interval of the nine values
      sentiment: {
        value: 0.233333,
        count: 9,
        ci95: { low: 0.041166, high: 0.4255 },
        previous: { value: null, count: 0, ci95: null },
        delta: null,
        delta_ci95: null,
        significant: null,
      },
      // fixo.com 3 (R2) + 2 (R3) = 5 of 6 + 4 = 10 → 0.5; R1: 0 of 6 g2.com = 0, a measured zero. The two
      // Wilson intervals overlap ([0.236593, 0.763407] and [0, 0.390334]), yet the change is significant:
      // its Newcombe interval excludes 0.
      source_share: {
        value: 0.5,
        numerator: 5,
        denominator: 10,
        ci95: { low: 0.236593, high: 0.763407 },
        previous: { value: 0, numerator: 0, denominator: 6, ci95: { low: 0, high: 0.390334 } },
        delta: 0.5,
        delta_ci95: { low: 0.029103, high: 0.763407 },
        significant: true,
        null_reason: null,
      },
    });
  });

  test('all: every run, no comparison; a custom window of whole months gives the same figures', async () => {
    const all = await get(`${A}/metrics?window=all`, getMetrics.output);
    expect(all.context.window).toEqual({ name: 'all', first_day: '2025-02-20', last_day: '2025-03-10', days: 19 });
    expect(all.context.comparison).toBeNull();
    expect(all.context.recipes).toEqual(['fx-v1', 'fx-v2']);
    const m = all.metrics;
    expect([m.answers, m.extracted_answers]).toEqual([22, 21]); // 2+6+6+4+4; 2+6+6+3+4
    // 2 + 0 + 6 + 2 + 2 = 12 of 21 = 0.571429
    expect(m.visibility).toEqual({
      value: 0.571429,
      numerator: 12,
      denominator: 21,
      ci95: { low: 0.365466, high: 0.7553 },
      previous: null,
      delta: null,
      delta_ci95: null,
      significant: null,
    });
    // 12 of 4 + 6 + 6 + 3 + 5 = 24 = 0.5
    expect(m.share_of_voice).toMatchObject({ value: 0.5, numerator: 12, denominator: 24, ci95: { low: 0.314274, high: 0.685726 } });
    // (3+1 + 6 + 2 + 3)/12, t(11) interval of the twelve positions
    expect(m.average_position).toEqual({
      value: 1.25,
      count: 12,
      ci95: { low: 0.855066, high: 1.644934 },
      previous: null,
      delta: null,
      delta_ci95: null,
      significant: null,
    });
    // (1.0+0 + 1.8 − 0.2 + 0.5)/11 = 3.1/11, t(10) interval of the eleven sentiments
    expect(m.sentiment).toEqual({
      value: 0.281818,
      count: 11,
      ci95: { low: 0.057353, high: 0.506283 },
      previous: null,
      delta: null,
      delta_ci95: null,
      significant: null,
    });
    // fixo.com 1 + 0 + 3 + 2 + 0 = 6 of 1 + 6 + 6 + 4 + 0 = 17 = 0.352941
    expect(m.source_share).toMatchObject({
      value: 0.352941,
      numerator: 6,
      denominator: 17,
      ci95: { low: 0.173097, high: 0.586996 },
      null_reason: null,
    });

    const months = await get(`${A}/metrics?from=2025-02-01&to=2025-03-31`, getMetrics.output);
    expect(months.context.window).toEqual({ name: 'custom', first_day: '2025-02-01', last_day: '2025-03-31', days: 59 });
    // Nothing was collected in the comparison period: no engine, prompt or recipe in common.
    expect(months.context.comparison).toEqual({
      first_day: '2024-12-04',
      last_day: '2025-01-31',
      run: null,
      comparable: false,
      changes: ['engines', 'prompts', 'recipes'],
    });
    expect(months.metrics.visibility).toEqual({ ...m.visibility, previous: { value: null, numerator: 0, denominator: 0, ci95: null } });
    expect(months.metrics.share_of_voice.numerator).toBe(12);
    expect(months.metrics.source_share.denominator).toBe(17);

    // Edge days only: 2025-03-01..10 = R1..R4 → 0 + 6 + 2 + 2 = 10 of 6 + 6 + 3 + 4 = 19; same as 14d.
    const edge = await get(`${A}/metrics?from=2025-03-01&to=2025-03-10`, getMetrics.output);
    expect(edge.metrics.visibility).toMatchObject({ value: 0.526316, numerator: 10, denominator: 19 });
    const d14 = await get(`${A}/metrics?window=14d`, getMetrics.output);
    expect(d14.metrics.visibility).toMatchObject({ numerator: 10, denominator: 19, previous: { numerator: 2, denominator: 2 } }); // R0: 2 of 2
  });

  test('a custom window without runs: no_data, null measures, volumes 0', async () => {
    const body = await get(`${A}/metrics?from=2025-03-09&to=2025-03-09`, getMetrics.output);
    expect(body.context.state).toBe('no_data');
    expect(body.metrics.answers).toBe(0);
    expect(body.metrics.visibility).toEqual({
      value: null,
      numerator: 0,
      denominator: 0,
      ci95: null,
      previous: { value: 1, numerator: 6, denominator: 6, ci95: { low: 0.609666, high: 1 } }, // 2025-03-08: R2
      delta: null,
      delta_ci95: null,
      significant: null,
    });
    expect(body.metrics.source_share.null_reason).toBe('not_measured');
  });

  test('no owned domain: source share null with reason no_owned_domains', async () => {
    const body = await get(`/analyses/${FIG_NOOWNED}/metrics`, getMetrics.output);
    expect(body.metrics.visibility).toMatchObject({ value: 1, numerator: 1, denominator: 1, ci95: { low: 0.206549, high: 1 } });
    expect(body.metrics.source_share).toEqual({
      value: null,
      numerator: 0,
      denominator: 1,
      ci95: null,
      previous: null,
      delta: null,
      delta_ci95: null,
      significant: null,
      null_reason: 'no_owned_domains',
    });
  });
});

describe('timeseries (get_metrics_timeseries)', () => {
  test('14d: one point per day, the latest run of a day, days without run said explicitly', async () => {
    const body = await get(`${A}/metrics/timeseries?window=14d`, getMetricsTimeseries.output);
    expect(body.points.map((p) => p.day)).toEqual(
      Array.from({ length: 14 }, (_, i) => new Date(Date.UTC(2025, 1, 25 + i)).toISOString().slice(0, 10)),
    );
    const byDay = new Map(body.points.map((p) => [p.day, p]));
    expect(body.points.filter((p) => p.state === 'no_run')).toHaveLength(11);
    // A day without a run says so and carries nothing else: there was nothing to measure.
    expect(byDay.get('2025-02-26')).toEqual({ day: '2025-02-26', state: 'no_run' });
    // R1: 0 of 6 answers name Fixo: a measured zero, not a null, with its Wilson interval. The first measured day
    // of the window: no change (R0, on 2025-02-20, lies before the window).
    expect(byDay.get('2025-03-01')).toEqual({
      day: '2025-03-01',
      state: 'measured',
      run_id: R1,
      answers: 6,
      extracted_answers: 6,
      visibility: { value: 0, numerator: 0, denominator: 6, ci95: { low: 0, high: 0.390334 } },
      share_of_voice: { value: 0, numerator: 0, denominator: 6, ci95: { low: 0, high: 0.390334 } },
      average_position: { value: null, count: 0, ci95: null },
      sentiment: { value: null, count: 0, ci95: null },
      source_share: { value: 0, numerator: 0, denominator: 6, ci95: { low: 0, high: 0.390334 }, null_reason: null },
      change: null,
    });
    // R2 against R1, the previous measured day (the six days between have no run): 6/6 against 0/6, share of
    // voice 6 of 6 Fixo mentions against 0 of 6. Newcombe: low = 1 − √((1 − 0.609666)² + 0.390334²) = 0.447984, high = 1.
    expect(byDay.get('2025-03-08')).toMatchObject({
      visibility: { value: 1, numerator: 6, denominator: 6 },
      change: {
        since: '2025-03-01',
        visibility: { delta: 1, delta_ci95: { low: 0.447984, high: 1 }, significant: true },
        share_of_voice: { delta: 1, delta_ci95: { low: 0.447984, high: 1 }, significant: true },
      },
    });
    // Two runs on 2025-03-10: R4 (14:00) wins over R3 (06:00): 2/4.
    expect(byDay.get('2025-03-10')).toMatchObject({ run_id: R4, visibility: { value: 0.5, numerator: 2, denominator: 4 } });
    expect(body.summary.visibility).toMatchObject({ numerator: 10, denominator: 19 });
  });

  test('default window is 30d', async () => {
    const body = await get(`${A}/metrics/timeseries`, getMetricsTimeseries.output);
    expect(body.context.window).toEqual({ name: '30d', first_day: '2025-02-09', last_day: '2025-03-10', days: 30 });
    expect(body.points).toHaveLength(30);
    expect(body.points.find((p) => p.day === '2025-02-20')).toMatchObject({
      run_id: R0,
      visibility: { value: 1, numerator: 2, denominator: 2 },
    });
  });
});

describe('engines (list_engines)', () => {
  test('last-run per engine, with a truly zero visibility on perplexity', async () => {
    const body = await get(`${A}/engines`, listEngines.output);
    expect(body.items.map((i) => i.engine.key)).toEqual(['chatgpt', 'perplexity']);
    expect([body.total, body.truncated, body.next_cursor]).toEqual([2, false, null]);
    const [c, p] = body.items;
    // chatgpt R4: a41, a42 both name Fixo → 2/2; R3: a31 yes, a32 no → 1/2.
    expect(c!.visibility).toEqual({
      value: 1,
      numerator: 2,
      denominator: 2,
      ci95: { low: 0.34238, high: 1 },
      previous: { value: 0.5, numerator: 1, denominator: 2, ci95: { low: 0.094531, high: 0.905469 } },
      delta: 0.5,
      delta_ci95: { low: -0.272573, high: 0.905469 },
      significant: false,
    });
    // chatgpt mentions R4: Fixo 2 of 4 = 0.5; R3: 1 of 1.
    expect(c!.share_of_voice).toMatchObject({
      value: 0.5,
      numerator: 2,
      denominator: 4,
      previous: { value: 1, numerator: 1, denominator: 1 },
      delta: -0.5,
    });
    // perplexity R4: a43 (Rival) and a44 (nothing) → 0 of 2 = 0; R3: a33 → 1/1.
    expect(p!.visibility).toEqual({
      value: 0,
      numerator: 0,
      denominator: 2,
      ci95: { low: 0, high: 0.65762 },
      previous: { value: 1, numerator: 1, denominator: 1, ci95: { low: 0.206549, high: 1 } },
      delta: -1,
      // The largest possible drop on two answers against one: still within the noise.
      delta_ci95: { low: -1, high: 0.030547 },
      significant: false,
    });
    expect(p!.share_of_voice).toMatchObject({ value: 0, numerator: 0, denominator: 1, ci95: { low: 0, high: 0.793451 } });
    const noChange = { ci95: null, delta: null, delta_ci95: null, significant: null };
    expect(p!.average_position).toEqual({ value: null, count: 0, previous: { value: 1, count: 1, ci95: null }, ...noChange });
    expect(p!.sentiment).toEqual({ value: null, count: 0, previous: { value: -0.4, count: 1, ci95: null }, ...noChange });
  });
});

describe('competitors (list_competitors)', () => {
  test('7d: direct and indirect ranked by mentions, tracked brand ranked too', async () => {
    const body = await get(`${A}/competitors?window=7d`, listCompetitors.output);
    // Mentions R2+R3+R4: Fixo 10, Rival 3 (a41, a42, a43), Nimbus 1 (a33), Quiet 0; all 14. R1: Rival 6.
    expect(body.tracked).toMatchObject({
      name: 'Fixo',
      rank: 1,
      previous_rank: null,
      mentions: 10,
      share_of_voice: { value: 0.714286, numerator: 10, denominator: 14 },
    });
    expect(body.items.map((i) => [i.name, i.kind, i.rank, i.previous_rank, i.mentions])).toEqual([
      ['Rival', 'direct', 2, 1, 3],
      ['Nimbus', 'indirect', 3, null, 1],
      ['Quiet', 'direct', 4, null, 0],
    ]);
    const [rival, nimbus, quiet] = body.items;
    expect(rival!.competitor_id).toBe(FIG_IDS.rival);
    // 3/14 = 0.214286 vs R1 6/6 = 1: [0.075714, 0.475892] vs [0.609666, 1] → outside the noise.
    expect(rival!.share_of_voice).toEqual({
      value: 0.214286,
      numerator: 3,
      denominator: 14,
      ci95: { low: 0.075714, high: 0.475892 },
      previous: { value: 1, numerator: 6, denominator: 6, ci95: { low: 0.609666, high: 1 } },
      delta: -0.785714,
      delta_ci95: { low: -0.924286, high: -0.315822 },
      significant: true,
    });
    expect(rival!.visibility).toMatchObject({ value: 0.230769, numerator: 3, denominator: 13, ci95: { low: 0.081795, high: 0.502564 } });
    // (2+1+1)/3 ± t(2) · √(1/3 / 3); R1: six times 1, zero variance; Welch with df 2.
    expect(rival!.average_position).toEqual({
      value: 1.333333,
      count: 3,
      ci95: { low: -0.100884, high: 2.767551 },
      previous: { value: 1, count: 6, ci95: { low: 1, high: 1 } },
      delta: 0.333333,
      delta_ci95: { low: -1.100884, high: 1.767551 },
      significant: false,
    });
    expect(nimbus!.share_of_voice).toMatchObject({
      value: 0.071429,
      numerator: 1,
      denominator: 14,
      ci95: { low: 0.012722, high: 0.314687 },
    });
    expect(nimbus!.competitor_id).toBeNull();
    expect(quiet!.share_of_voice).toMatchObject({ value: 0, numerator: 0, denominator: 14, ci95: { low: 0, high: 0.215311 } });
    expect([body.total, body.truncated, body.next_cursor]).toEqual([3, false, null]);
  });
});

describe('sources (list_sources)', () => {
  test('7d: ranked by share of citations, owned flagged; limit truncates', async () => {
    const body = await get(`${A}/sources?window=7d`, listSources.output);
    // fixo.com 3 + 2 = 5, rival.com 3, g2.com 2 (a31, a32); 10 citations. R1: g2.com 6 of 6.
    expect(body.items.map((i) => [i.domain, i.owned, i.rank, i.previous_rank, i.citations, i.answers])).toEqual([
      ['fixo.com', true, 1, null, 5, 5],
      ['rival.com', false, 2, null, 3, 3],
      ['g2.com', false, 3, 1, 2, 2],
    ]);
    expect(body.items[1]!.share).toMatchObject({ value: 0.3, numerator: 3, denominator: 10, ci95: { low: 0.107791, high: 0.603222 } });
    expect(body.items[2]!.share).toEqual({
      value: 0.2,
      numerator: 2,
      denominator: 10,
      ci95: { low: 0.056682, high: 0.509838 },
      previous: { value: 1, numerator: 6, denominator: 6, ci95: { low: 0.609666, high: 1 } },
      delta: -0.8,
      delta_ci95: { low: -0.943318, high: -0.301643 },
      significant: true,
    });
    expect([body.total, body.truncated]).toEqual([3, false]);
    const two = await get(`${A}/sources?window=7d&limit=2`, listSources.output);
    expect(two.items.map((i) => i.domain)).toEqual(['fixo.com', 'rival.com']);
    expect([two.total, two.truncated, two.next_cursor]).toEqual([3, true, null]);
  });

  test('last-run without citations: empty list, total 0', async () => {
    const body = await get(`${A}/sources`, listSources.output);
    expect([body.items, body.total, body.truncated]).toEqual([[], 0, false]);
  });
});

describe('groups (list_groups) and group prompts (list_group_prompts)', () => {
  test('7d groups with their metrics; none last', async () => {
    const body = await get(`${A}/groups?window=7d`, listGroups.output);
    expect(body.items.map((i) => [i.id, i.name, i.prompts, i.answers, i.extracted_answers])).toEqual([
      [FIG_IDS.alpha, 'Alpha', 2, 11, 10], // R2 4 + R3 4 + R4 3 answers; a34 failed extraction
      [FIG_IDS.empty, 'Empty', 0, 0, 0],
      ['none', null, 1, 3, 3], // P3: R2 2 + R4 a44
    ]);
    // Alpha: 4 + 2 + 2 = 8 of 10 = 0.8 vs R1 0 of 4: [0.490162, 0.943318] vs [0, 0.489891] → just outside.
    expect(body.items[0]!.visibility).toEqual({
      value: 0.8,
      numerator: 8,
      denominator: 10,
      ci95: { low: 0.490162, high: 0.943318 },
      previous: { value: 0, numerator: 0, denominator: 4, ci95: { low: 0, high: 0.489891 } },
      delta: 0.8,
      delta_ci95: { low: 0.220352, high: 0.943318 },
      significant: true,
    });
    expect(body.items[1]!.visibility.value).toBeNull();
    expect(body.items[2]!.visibility).toMatchObject({
      value: 0.666667,
      numerator: 2,
      denominator: 3,
      previous: { numerator: 0, denominator: 2 },
    });
  });

  test('7d prompts of Alpha at question grain, per engine, paged by limit and offset', async () => {
    const first = await get(`${A}/groups/${FIG_IDS.alpha}/prompts?window=7d&limit=1`, listGroupPrompts.output);
    expect([first.total, first.truncated, first.next_cursor]).toEqual([2, true, null]);
    const p1 = first.items[0]!;
    // Branded by the rule (no pipeline value): "fixing" is not the brand Fixo (figures-v3.test.ts).
    expect(p1.prompt).toEqual({
      id: FIG_IDS.p1,
      text: 'Best tool for fixing things?',
      language: 'en',
      branded: false,
      branded_source: 'rule',
    });
    // P1 chatgpt: R2, a31, a41 all name Fixo → 3/3; perplexity: R2, a33 yes, a43 no → 2/3; together 5/6.
    expect(p1.engines.map((e) => [e.engine.key, e.visibility.numerator, e.visibility.denominator, e.visibility.value])).toEqual([
      ['chatgpt', 3, 3, 1],
      ['perplexity', 2, 3, 0.666667],
    ]);
    expect(p1.engines[0]!.visibility.ci95).toEqual({ low: 0.438503, high: 1 });
    expect(p1.all_engines.visibility).toMatchObject({
      value: 0.833333,
      ci95: { low: 0.436497, high: 0.969947 },
      previous: { numerator: 0, denominator: 2 },
    });
    const second = await get(`${A}/groups/${FIG_IDS.alpha}/prompts?window=7d&limit=1&offset=1`, listGroupPrompts.output);
    expect([second.items.map((i) => i.prompt.id), second.total, second.truncated]).toEqual([[FIG_IDS.p2], 2, false]);
    // P2 perplexity: R2 answer + a34 (extraction failed) → 2 answers, 1 extracted, 1 naming Fixo.
    expect(second.items[0]!.engines[1]).toMatchObject({
      answers: 2,
      extracted_answers: 1,
      visibility: { value: 1, numerator: 1, denominator: 1 },
    });
    const beyond = await get(`${A}/groups/${FIG_IDS.alpha}/prompts?window=7d&offset=100000`, listGroupPrompts.output);
    expect([beyond.items, beyond.total, beyond.truncated]).toEqual([[], 2, false]);
    const none = await get(`${A}/groups/none/prompts?window=7d`, listGroupPrompts.output);
    expect(none.items.map((i) => i.prompt.id)).toEqual([FIG_IDS.p3]);
    const empty = await get(`${A}/groups/${FIG_IDS.empty}/prompts`, listGroupPrompts.output);
    expect([empty.items, empty.total]).toEqual([[], 0]);
  });

  test('a group of another analysis, an unknown one or a malformed id → 404 not_found', async () => {
    for (const g of [FIG_IDS.other, '00000000-0000-4000-8000-000000000000', 'abc', 'NONE']) {
      expectError(await call(api, `${A}/groups/${g}/prompts`, FIG_SECRET), 404, 'not_found', { budget: true });
    }
  });
});
