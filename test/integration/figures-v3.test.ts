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
