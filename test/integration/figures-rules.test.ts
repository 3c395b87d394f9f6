import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { z } from 'zod';
import { listCompetitors } from '#shared/reads/figures/competitors.js';
import { listEngines } from '#shared/reads/figures/engines.js';
import { listGroupPrompts, listGroups } from '#shared/reads/figures/groups.js';
import { getMetrics } from '#shared/reads/figures/metrics.js';
import { listSources } from '#shared/reads/figures/sources.js';
import { getMetricsTimeseries } from '#shared/reads/figures/timeseries.js';
import type { LocalApi } from '../../local/stack.js';
import { call, expectError, expectServed, manifest, readerUrl, startTestApi } from '../support/api.js';

/**
 * docs/contract.md#measurement-context-and-empty-values and #common-parameters rules on the demo dataset:
 * windows, refusals, null semantics, the two special analyses.
 */

let api: LocalApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
const key = () => manifest.keys.workspace;
const at = (label: keyof typeof manifest.analyses) => `/analyses/${manifest.analyses[label]}`;

const READS: [string, string, z.ZodType][] = [
  ['metrics', '/metrics', getMetrics.output],
  ['engines', '/engines', listEngines.output],
  ['competitors', '/competitors', listCompetitors.output],
  ['sources', '/sources', listSources.output],
  ['groups', '/groups', listGroups.output],
  ['group prompts', '/groups/none/prompts', listGroupPrompts.output],
];
const ALL: [string, string, z.ZodType][] = [...READS, ['timeseries', '/metrics/timeseries', getMetricsTimeseries.output]];
type Ctx = {
  context: {
    state: string;
    extraction_late: boolean;
    window: { name: string; first_day: string | null; last_day: string | null; days: number | null };
  };
};

describe('windows (docs/contract.md#common-parameters, #the-fifteen-reads)', () => {
  test.each(READS)('%s accepts every window, defaults to last-run, echoes what it understood', async (_n, suffix, schema) => {
    const plain = expectServed(await call(api, `${at('collected')}${suffix}`, key()), schema) as Ctx;
    expect(plain.context.window).toMatchObject({ name: 'last-run', days: 1 });
    const last = plain.context.window.last_day as string;
    for (const [w, days] of [
      ['last-run', 1],
      ['7d', 7],
      ['14d', 14],
      ['30d', 30],
      ['90d', 90],
    ] as const) {
      const body = expectServed(await call(api, `${at('collected')}${suffix}?window=${w}`, key()), schema) as Ctx;
      expect(body.context.window).toMatchObject({ name: w, last_day: last, days });
    }
    const all = expectServed(await call(api, `${at('collected')}${suffix}?window=all`, key()), schema) as Ctx & {
      context: { comparison: unknown };
    };
    expect(all.context.comparison).toBeNull();
    const custom = expectServed(await call(api, `${at('collected')}${suffix}?from=2020-01-01&to=2020-01-31`, key()), schema) as Ctx;
    expect(custom.context).toMatchObject({
      state: 'no_data',
      window: { name: 'custom', first_day: '2020-01-01', last_day: '2020-01-31', days: 31 },
    });
  });

  test.each(ALL)(
    '%s serves the extreme legal windows: the first and the last 366 days of the calendar it accepts',
    async (_n, suffix, schema) => {
      for (const [from, to] of [
        ['2000-01-01', '2000-12-31'],
        ['2099-01-01', '2099-12-31'],
        ['2000-01-01', '2000-01-01'],
        ['2099-12-31', '2099-12-31'],
      ] as const) {
        const body = expectServed(await call(api, `${at('collected')}${suffix}?from=${from}&to=${to}`, key()), schema) as Ctx & {
          context: { comparison: { first_day: string } | null };
        };
        expect(body.context).toMatchObject({ state: 'no_data', window: { name: 'custom', first_day: from, last_day: to } });
        // The comparison period reaches before the first accepted day, and is still an ordinary date.
        expect(body.context.comparison?.first_day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      }
    },
  );

  test('timeseries refuses last-run and defaults to 30d', async () => {
    expectError(await call(api, `${at('collected')}/metrics/timeseries?window=last-run`, key()), 422, 'invalid_request', {
      param: 'window',
      budget: true,
    });
    const body = expectServed(await call(api, `${at('collected')}/metrics/timeseries`, key()), getMetricsTimeseries.output);
    expect(body.context.window).toMatchObject({ name: '30d', days: 30 });
    expect(body.points).toHaveLength(30);
  });

  const refusals: [string, string][] = [
    ['from=2026-02-30&to=2026-03-02', 'from'],
    ['from=2026-01-01&to=2026-02-30', 'to'],
    ['from=2026-13-01&to=2026-13-02', 'from'],
    ['from=2026-1-1&to=2026-01-02', 'from'],
    ['from=2026-03-02&to=2026-03-01', 'from'],
    ['from=2026-03-01', 'to'],
    ['to=2026-03-01', 'from'],
    ['window=7d&from=2026-03-01&to=2026-03-02', 'window'],
    ['window=7d&window=7d', 'window'],
    ['window=1d', 'window'],
    ['window=LAST-RUN', 'window'],
    ['window=', 'window'],
    ['from=2026-03-01&from=2026-03-01&to=2026-03-02', 'from'],
    ['bogus=1', 'bogus'],
    // Bounds: days 2000-01-01..2099-12-31, at most 366 days from `from` to `to` included.
    ['from=1999-12-31&to=2000-01-01', 'from'],
    ['from=2099-12-31&to=2100-01-01', 'to'],
    ['from=0000-01-01&to=0000-01-02', 'from'],
    ['from=0001-01-01&to=0001-01-01', 'from'],
    ['from=9999-12-30&to=9999-12-31', 'from'],
    ['from=-001-01-01&to=2026-01-01', 'from'],
    ['from=+20000-01-01&to=2026-01-01', 'from'],
    ['from=2025-01-01&to=2026-01-02', 'to'],
    ['from=2000-01-01&to=2099-12-31', 'to'],
  ];
  test.each(ALL.flatMap(([n, s]) => refusals.map(([qs, param]) => [n, s, qs, param] as const)))(
    '%s ?%s → 422 naming %s',
    async (_n, suffix, qs, param) => {
      expectError(await call(api, `${at('collected')}${suffix}?${qs}`, key()), 422, 'invalid_request', { param, budget: true });
    },
  );

  test.each([
    ['/sources?limit=0', 'limit'],
    ['/sources?limit=201', 'limit'],
    ['/sources?limit=1.5', 'limit'],
    ['/groups/none/prompts?limit=0', 'limit'],
    ['/groups/none/prompts?limit=201', 'limit'],
    ['/groups/none/prompts?offset=-1', 'offset'],
    ['/groups/none/prompts?offset=100001', 'offset'],
    ['/groups/none/prompts?offset=2.5', 'offset'],
    ['/groups/none/prompts?offset=1e3', 'offset'],
    ['/metrics?limit=5', 'limit'],
    ['/groups?offset=0', 'offset'],
  ])('%s → 422 naming %s, never clamped', async (suffix, param) => {
    expectError(await call(api, `${at('collected')}${suffix}`, key()), 422, 'invalid_request', { param, budget: true });
  });

  test('bounds themselves are accepted', async () => {
    for (const suffix of [
      '/sources?limit=1',
      '/sources?limit=200',
      '/groups/none/prompts?limit=200&offset=100000',
      '/groups/none/prompts?offset=0',
    ]) {
      expectServed(
        await call(api, `${at('collected')}${suffix}`, key()),
        suffix.startsWith('/sources') ? listSources.output : listGroupPrompts.output,
      );
    }
    const one = expectServed(await call(api, `${at('collected')}/sources?window=30d&limit=1`, key()), listSources.output);
    expect(one.items).toHaveLength(1);
    expect(one.truncated).toBe(one.total > 1);
  });

  test('an analysis out of reach → 404 analysis_not_found', async () => {
    expectError(await call(api, `${at('other_workspace')}/metrics`, key()), 404, 'analysis_not_found', { budget: true });
  });
});

describe('null semantics (docs/contract.md#measurement-context-and-empty-values)', () => {
  test.each(ALL)('never collected: %s answers 200 with state never_collected and null figures', async (_n, suffix, schema) => {
    const body = expectServed(await call(api, `${at('never_collected')}${suffix}`, key()), schema) as Ctx & Record<string, unknown>;
    expect(body.context).toMatchObject({ state: 'never_collected', extraction_late: false });
    const metrics = body.metrics as { answers: number; visibility: { value: unknown }; source_share: { null_reason: string } } | undefined;
    if (metrics) {
      expect(metrics.answers).toBe(0);
      expect(metrics.visibility.value).toBeNull();
      expect(metrics.source_share.null_reason).toBe('not_measured');
    }
  });

  test('extraction late: last-run measures null, flag set, volumes filled, run stated', async () => {
    const body = expectServed(await call(api, `${at('extraction_late')}/metrics`, key()), getMetrics.output);
    expect(body.context).toMatchObject({
      state: 'extraction_late',
      extraction_late: true,
      run: { state: 'extracting', finished_at: null },
      measured_at: null,
      recipes: [],
    });
    expect(body.metrics.answers).toBeGreaterThan(0);
    expect(body.metrics.extracted_answers).toBe(0);
    for (const m of [body.metrics.visibility, body.metrics.share_of_voice, body.metrics.source_share]) expect(m.value).toBeNull();
    expect(body.metrics.average_position.value).toBeNull();
    expect(body.metrics.sentiment.value).toBeNull();
    expect(body.metrics.visibility.previous?.value).not.toBeNull();
    expect(body.context.coverage.every((c) => c.collected > 0 && c.extracted === 0)).toBe(true);
    const engines = expectServed(await call(api, `${at('extraction_late')}/engines`, key()), listEngines.output);
    expect(engines.items.every((i) => i.answers > 0 && i.visibility.value === null)).toBe(true);
    const groups = expectServed(await call(api, `${at('extraction_late')}/groups`, key()), listGroups.output);
    expect(groups.items.reduce((n, g) => n + g.answers, 0)).toBe(body.metrics.answers);
    const prompts = expectServed(await call(api, `${at('extraction_late')}/groups/none/prompts`, key()), listGroupPrompts.output);
    expect(prompts.items.every((i) => i.all_engines.answers > 0 && i.all_engines.visibility.value === null)).toBe(true);
  });

  test('extraction late inside a longer window: measured on the extracted runs, flagged, late volumes counted', async () => {
    const body = expectServed(await call(api, `${at('extraction_late')}/metrics?window=7d`, key()), getMetrics.output);
    expect(body.context).toMatchObject({ state: 'measured', extraction_late: true });
    expect(body.metrics.answers).toBeGreaterThan(body.metrics.extracted_answers);
    expect(body.metrics.visibility.value).not.toBeNull();
    const series = expectServed(
      await call(api, `${at('extraction_late')}/metrics/timeseries?window=7d`, key()),
      getMetricsTimeseries.output,
    );
    const lastPoint = series.points.at(-1)!;
    expect(lastPoint).toMatchObject({ state: 'extraction_late', visibility: { value: null } });
    expect(lastPoint.state !== 'no_run' && lastPoint.answers).toBeGreaterThan(0);
  });

  test('a day without a run is listed as no_run; a day with two runs shows the later one', async () => {
    const series = expectServed(await call(api, `${at('collected')}/metrics/timeseries?window=90d`, key()), getMetricsTimeseries.output);
    const gaps = series.points.filter((p) => p.state === 'no_run');
    expect(gaps.length).toBeGreaterThanOrEqual(3); // demo gaps 17, 52, 53 days back
    expect(gaps.every((p) => Object.keys(p).join() === 'day,state')).toBe(true);
    const client = new pg.Client({ connectionString: readerUrl() });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, array_agg(id ORDER BY started_at DESC) AS ids
           FROM runs WHERE analysis_id = $1 GROUP BY 1 HAVING count(*) > 1`,
        [manifest.analysisIds.collected],
      );
      expect(rows.length).toBe(1);
      expect(series.points.find((p) => p.day === rows[0].day)).toMatchObject({ run_id: rows[0].ids[0] });
    } finally {
      await client.end();
    }
  });

  test('the gemini zero day of the demo is a measured 0, not null', async () => {
    const series = expectServed(await call(api, `${at('collected')}/metrics/timeseries?window=7d`, key()), getMetricsTimeseries.output);
    const day = series.points[series.points.length - 4]!; // 3 days back from the anchor
    const engines = expectServed(await call(api, `${at('collected')}/engines?from=${day.day}&to=${day.day}`, key()), listEngines.output);
    const gemini = engines.items.find((i) => i.engine.key === 'gemini')!;
    expect(gemini.visibility).toMatchObject({ value: 0, numerator: 0 });
    expect(gemini.visibility.denominator).toBeGreaterThan(0);
  });
});

describe('aggregates agree with the raw measurements', () => {
  test('window=all on the demo equals counts taken straight from answers, mentions and citations', async () => {
    const body = expectServed(await call(api, `${at('collected')}/metrics?window=all`, key()), getMetrics.output);
    const client = new pg.Client({ connectionString: readerUrl() });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT count(*)::int AS answers,
                count(*) FILTER (WHERE x.extraction_state = 'extracted')::int AS extracted,
                count(*) FILTER (WHERE EXISTS (SELECT 1 FROM mentions m WHERE m.answer_id = x.id AND m.is_tracked))::int AS mentioned,
                (SELECT count(*)::int FROM mentions m JOIN answers y ON y.id = m.answer_id WHERE y.analysis_id = $1 AND m.is_tracked) AS tracked,
                (SELECT count(*)::int FROM mentions m JOIN answers y ON y.id = m.answer_id WHERE y.analysis_id = $1) AS brands,
                (SELECT count(*)::int FROM citations c JOIN answers y ON y.id = c.answer_id WHERE y.analysis_id = $1) AS citations,
                (SELECT count(*)::int FROM citations c JOIN answers y ON y.id = c.answer_id JOIN analyses a ON a.id = y.analysis_id
                  WHERE y.analysis_id = $1 AND c.domain = ANY (a.owned_domains)) AS owned
           FROM answers x WHERE x.analysis_id = $1`,
        [manifest.analysisIds.collected],
      );
      const r = rows[0];
      const m = body.metrics;
      expect([
        m.answers,
        m.extracted_answers,
        m.visibility.numerator,
        m.share_of_voice.numerator,
        m.share_of_voice.denominator,
        m.source_share.denominator,
        m.source_share.numerator,
      ]).toEqual([r.answers, r.extracted, r.mentioned, r.tracked, r.brands, r.citations, r.owned]);
    } finally {
      await client.end();
    }
  });
});
