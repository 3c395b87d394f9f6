import * as z from 'zod';
import { analysisParam, day, uuid } from '../../contracts/common.js';
import { contextSchema, headlineSchema } from '../../figures/contracts.js';
import { headline, loadFigures, MEASURES, SUM_MEASURES, total, zeroSums, type Sums } from '../../figures/load.js';
import { addDays, Params, runFilter } from '../../figures/window.js';
import { checkWindow, windowParams } from '../../windows.js';
import { defineRead } from '../types.js';

const SERIES_WINDOWS = ['7d', '14d', '30d', '90d', 'all'] as const;

const point = headlineSchema
  .extend({
    day: day,
    state: z
      .enum(['measured', 'extraction_late', 'extraction_failed', 'no_run'])
      .describe(
        'measured: the day’s run is extracted; extraction_late: collected, extraction not finished (measures null, answers filled); extraction_failed: the run failed after collection; no_run: no collection finished that day — every figure null and answers 0, said explicitly rather than left out.',
      ),
    run_id: uuid.nullable().describe('The run the point shows: the latest collection of the day (by start) when a day has several; null on no_run days.'),
  })
  .describe('One UTC day. previous/delta/significant are null on points: compare neighbouring points, or see summary.');

export const timeseriesSchema = z
  .object({
    context: contextSchema,
    summary: headlineSchema.describe('Headline metrics over the whole window, with the comparison period (as the metrics read).'),
    points: z.array(point).describe('One point per UTC day of the window, oldest first, days without a run included.'),
  })
  .meta({ id: 'timeseries', description: 'Daily series of the headline metrics; a day with two runs yields its latest run.' });

export const getMetricsTimeseries = defineRead({
  name: 'get_metrics_timeseries',
  family: 'figures',
  path: '/analyses/{analysis}/metrics/timeseries',
  summary: 'Daily series of headline metrics',
  description:
    'One point per UTC day: the headline figures of the day’s latest run; a day without a run has state no_run. Window: 7d, 14d, 30d (default), 90d (days up to the latest collection), all, or from/to (UTC days); no last-run. ' +
    'A day with a run weighs up to 1 KB: beyond about 60 days (all, 90d, a wide from/to) a result can exceed what an assistant reads; ask for 30d, or walk from/to spans of two months.',
  input: z.strictObject({ analysis: analysisParam, ...windowParams(SERIES_WINDOWS, '30d') }).superRefine(checkWindow),
  output: timeseriesSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const loaded = await loadFigures(ctx, input, '30d');
    const { context, engines, res, info } = loaded;
    const summary = headline(total(engines[0]), res.previous ? total(engines[1]) : null, info);
    const cur = res.current;
    if (!cur) return { context, summary, points: [] };
    const p = new Params(ctx.analysis!.id);
    const rows = await ctx.db.query<Sums & { day: string; id: string; state: string; pending: number | null; has_rows: boolean }>(
      `SELECT d.day, d.id, d.state, u.pending, s.*
         FROM (SELECT DISTINCT ON (1) to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, r.id, r.state
                 FROM runs r
                WHERE r.analysis_id = $1 AND r.collected_at IS NOT NULL AND ${runFilter(p, { kind: 'days', from: cur.from, to: cur.to })}
                ORDER BY 1, r.started_at DESC, r.id DESC) d
         LEFT JOIN LATERAL (SELECT count(*) > 0 AS has_rows, ${SUM_MEASURES} FROM fig_run_engine f WHERE f.run_id = d.id) s ON true
         LEFT JOIN LATERAL (SELECT sum(e.collected)::int AS pending FROM run_engines e WHERE e.run_id = d.id AND d.state <> 'finished') u ON true`,
      p.values,
    );
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const points = [];
    for (let d = cur.from; d <= cur.to; d = addDays(d, 1)) {
      const r = byDay.get(d);
      const sums = zeroSums();
      if (r) for (const m of MEASURES) sums[m] = Number(r[m] ?? 0);
      if (r && !r.has_rows) sums.answers += r.pending ?? 0;
      const state = !r ? 'no_run' : r.has_rows ? 'measured' : r.state === 'failed' ? 'extraction_failed' : 'extraction_late';
      points.push({ day: d, state, run_id: r?.id ?? null, ...headline(sums, null, info) } as const);
    }
    return { context, summary, points };
  },
});
