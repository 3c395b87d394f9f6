import { InvalidRequest } from '../../errors.js';
import { analysisParam, day, uuid } from '../contracts/common.js';
import { contextSchema, dayMean, dayRate, daySourceShare, windowHeadlineSchema, windowSegmentsSchema } from '../contracts/figures.js';
import { bounds, pValue, significant, significantFdr } from '../contracts/rates.js';
import { ASSISTANT_DEFAULT_CHARS, roughly } from '../contracts/result-size.js';
import * as z from '../contracts/zod.js';
import { mean, rateChange, round, wilson } from '../stats.js';
import { defineRead } from '../types.js';
import { checkWindow, daysFrom, MAX_WINDOW_DAYS, spanDays, windowParams } from '../windows.js';
import { segmentsParam } from './inputs.js';
import {
  accumulate,
  bySegment,
  type CommonJson,
  callFigures,
  corrected,
  fromArrays,
  headline,
  loadCommon,
  MEASURES,
  positions,
  type Segment,
  type SegmentsJson,
  type SegmentUniverseJson,
  type Sums,
  segmentSums,
  segmentWindowHeadlines,
  sentiments,
  sumsOf,
  total,
  type UniverseJson,
  windowHeadline,
  zeroSums,
} from './load.js';

const SERIES_WINDOWS = ['7d', '14d', '30d', '90d', 'all'] as const;

/**
 * Longest history `window=all` returns as daily points (about six and a half years). Custom windows are
 * bounded by MAX_WINDOW_DAYS already; this bounds the one window whose length comes from the data, so the
 * work and the size of any legal call stay bounded (MAX_SERIES_DAYS × SERIES_SIZE.dayBytes at most): through
 * MCP that body comes twice (text block and structuredContent) inside a Lambda response escaped once more,
 * about 2.5 times its size, which must stay under Lambda's 6 MB response limit.
 */
export const MAX_SERIES_DAYS = 2400;

/**
 * Longest series that splits each day by kind of prompt (segments=branded): every named and custom window
 * of a year, never a longer `window=all`. Its statement reads each day's rows per prompt and engine, so
 * its work grows with the days, and a day weighs about three times as much (SERIES_SIZE.segments).
 */
export const MAX_SEGMENT_SERIES_DAYS = MAX_WINDOW_DAYS;

const count = (what: string) => z.number().int().min(0).describe(`${what}. Integer ≥ 0.`);

/** A rate's move between two measured days: the test a rate figure carries, without the values the two points show. */
const dayMove = z
  .object({
    delta: z.number().min(-1).max(1).nullable().describe('Day value − since-day value; null when a denominator is 0.'),
    delta_ci95: bounds.nullable().describe('Newcombe 95% interval; null with delta.'),
    significant: significant.describe('As on a rate.'),
    p_value: pValue('Newcombe interval inverted').describe('As on a rate.'),
    significant_fdr: significantFdr.describe('As on a rate.'),
  })
  .meta({ id: 'day_move', description: 'A rate’s move since the previous measured day, tested as a rate’s delta.' });

const dayChange = z
  .object({
    since: day,
    visibility: dayMove,
    share_of_voice: dayMove,
  })
  .meta({
    id: 'series_day_change',
    description: 'Visibility and share of voice since `since`, the window’s previous measured day.',
  });

/** A day's figures, written once: a point extends them, and each of its segments is one of them over one kind of prompt. */
const dayFigures = z
  .object({
    answers: count('Answers collected by the day’s run'),
    extracted_answers: count('Answers of the day’s run whose extraction succeeded: the denominator of visibility'),
    visibility: dayRate.describe('Share of extracted answers naming the tracked brand, 0..1.'),
    share_of_voice: dayRate.describe('Tracked-brand mentions over all brand mentions, 0..1.'),
    average_position: dayMean.describe('Mean first order of appearance of the tracked brand, ≥ 1; null when count is 0.'),
    sentiment: dayMean.describe('Mean sentiment of the tracked brand’s scored mentions, -1..1; null when count is 0.'),
    source_share: daySourceShare.describe('Citations to the owned domains over all citations, 0..1, with the reason when null.'),
    change: dayChange.nullable().describe('Null on the first measured day and on days not measured.'),
  })
  .meta({ id: 'series_day_figures', description: 'A day’s headline figures (in segments: over one kind of prompt’s answers).' });

const daySegments = z
  .object({ branded: dayFigures, non_branded: dayFigures })
  .meta({ id: 'series_day_segments', description: 'The day’s figures by kind of prompt; their counts add up to the day’s.' })
  .nullable()
  .describe('Null unless segments=branded.');

const ranPoint = dayFigures
  .extend({
    day,
    state: z
      .enum(['measured', 'extraction_late', 'extraction_failed'])
      .describe(
        'measured: the day’s run is extracted; extraction_late: collected, extraction not finished (measures null, answers filled); extraction_failed: the run failed after collection (measures null).',
      ),
    run_id: uuid.describe('The run the point shows: the latest collection of the day (by start) when a day has several.'),
    segments: daySegments,
  })
  .meta({ id: 'series_day', description: 'A UTC day with a collection: the headline figures of its latest run.' });

const noRunPoint = z
  .object({
    day,
    state: z.literal('no_run').describe('No collection finished that day: nothing was measured, so the point carries no figure.'),
  })
  .meta({ id: 'series_day_without_run', description: 'A UTC day without a collection, listed rather than left out.' });

const point = z.discriminatedUnion('state', [ranPoint, noRunPoint]);

export const timeseriesSchema = z
  .object({
    context: contextSchema,
    summary: windowHeadlineSchema.describe(
      'Headline metrics over the whole window, with the comparison period, intervals and significance (as the metrics read).',
    ),
    segments: windowSegmentsSchema.describe('The summary per kind of prompt; null unless segments=branded.'),
    points: z
      .array(point)
      .describe(
        'One point per UTC day of the window, oldest first; days without a run are {day, state: no_run}. A measured day carries its change since the previous one.',
      ),
  })
  .meta({ id: 'timeseries', description: 'Daily series of the headline metrics; a day with two runs yields its latest run.' });

type Point = z.infer<typeof point>;

type DayRow = Sums & { day: string; id: string; state: string; pending: number | null; has_rows: boolean };
/** The order of a day's values as api_fig_days sends them (shared/admin/sql/functions/figures.sql). */
export const SERIES_COLUMNS = ['day', 'id', 'state', 'pending', 'has_rows', ...MEASURES] as const satisfies readonly (keyof DayRow)[];

/** A point's rate with its Wilson interval; its move from the day before is in the point's change. */
function pointRateOf(k: number, n: number, measured = true) {
  return { value: measured && n > 0 ? round(k / n) : null, numerator: k, denominator: n, ci95: measured ? wilson(k, n) : null };
}

type Change = z.infer<typeof dayChange>;

/** A measured day against the previous measured day (`since`, with its sums). */
function changeOf(sums: Sums, since: { day: string; sums: Sums }): Change {
  const p = since.sums;
  return {
    since: since.day,
    visibility: rateChange(sums.mentioned, sums.extracted, { k: p.mentioned, n: p.extracted }),
    share_of_voice: rateChange(sums.tracked_mentions, sums.brand_mentions, { k: p.tracked_mentions, n: p.brand_mentions }),
  };
}

type DayFigures = z.infer<typeof dayFigures>;

/** A day's figures from its sums, with its change since the previous measured day (null when there is none). */
function dayFiguresOf(sums: Sums, ownedDomains: boolean, change: Change | null): DayFigures {
  const sourceReason = !ownedDomains
    ? 'no_owned_domains'
    : sums.extracted === 0
      ? 'not_measured'
      : sums.citations === 0
        ? 'no_citations'
        : null;
  return {
    answers: sums.answers,
    extracted_answers: sums.extracted,
    visibility: pointRateOf(sums.mentioned, sums.extracted),
    share_of_voice: pointRateOf(sums.tracked_mentions, sums.brand_mentions),
    average_position: mean(positions(sums)),
    sentiment: mean(sentiments(sums)),
    source_share: { ...pointRateOf(sums.owned_citations, sums.citations, ownedDomains), null_reason: sourceReason },
    change,
  };
}

/** A day's sums per kind of prompt. */
type KindSums = Record<Segment, Sums>;

/** Each kind's sums of a day whose run has no rows of it: zero. */
const noKinds = (): KindSums => bySegment(() => zeroSums());

/** The order of a row of fig_branded_days (shared/admin/sql/functions/figures.sql): run, branded, then MEASURES. */
const DAY_SEGMENT_COLUMNS = ['id', 'branded', ...MEASURES] as const;

/** Each kind of prompt's figures of a day, with each kind's change since the previous measured day (`before`). */
function daySegmentsOf(
  kinds: KindSums,
  owned: boolean,
  before: { day: string; kinds: KindSums | null } | null,
): Record<Segment, DayFigures> {
  return bySegment((k) => {
    const since = before?.kinds ? { day: before.day, sums: before.kinds[k] } : null;
    return dayFiguresOf(kinds[k], owned, since ? changeOf(kinds[k], since) : null);
  });
}

/** What fig_branded_days returns, by run: each kind of prompt's sums (zero for a kind without rows). */
function daySegmentSums(rows: unknown[][] | null): Map<string, KindSums> {
  const out = new Map<string, KindSums>();
  for (const r of fromArrays<Sums & { id: string; branded: boolean }>(DAY_SEGMENT_COLUMNS, rows)) {
    const kinds = out.get(r.id) ?? noKinds();
    accumulate(kinds[r.branded ? 'branded' : 'non_branded'], r);
    out.set(r.id, kinds);
  }
  return out;
}

/**
 * What the series weighs on a long history (a day with a run, on six engines) and what to ask for
 * instead, so that a result stays within what every assistant host shows whole
 * (ASSISTANT_DEFAULT_CHARS): quoted by the description, held to the measured weight and the advised calls
 * to that bound by the 1-year reliability test.
 */
export const SERIES_SIZE = {
  dayBytes: 960,
  window: '30d',
  spanDays: 35,
  /** The same with segments=branded: each day's figures again for each kind of prompt. */
  segments: { dayBytes: 2700, window: '7d', spanDays: 10 },
} as const;

export const getMetricsTimeseries = defineRead({
  name: 'get_metrics_timeseries',
  family: 'figures',
  path: '/analyses/{analysis}/metrics/timeseries',
  summary: 'Daily series of headline metrics',
  description:
    'One point per UTC day: the headline figures of the day’s latest run (95% intervals; change since the prior measured day); a day without a run is {day, state: no_run}. Use it for trends. ' +
    'Window: the days up to the latest collection (default 30d), all, or from/to; no last-run. ' +
    `A day with a run weighs about ${SERIES_SIZE.dayBytes / 1000} KB (${SERIES_SIZE.segments.dayBytes / 1000} KB with segments), so beyond about ${roughly(ASSISTANT_DEFAULT_CHARS / SERIES_SIZE.dayBytes)} days a result can exceed what an assistant shows whole: ask for ${SERIES_SIZE.window} or less, or walk from/to spans of at most ${SERIES_SIZE.spanDays} days (with segments: ${SERIES_SIZE.segments.window}, or ${SERIES_SIZE.segments.spanDays} days).`,
  input: z.strictObject({ analysis: analysisParam, ...windowParams(SERIES_WINDOWS, '30d'), ...segmentsParam }).superRefine(checkWindow),
  output: timeseriesSchema,
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const raw = await callFigures<{
      common: CommonJson;
      universe: UniverseJson;
      segments: SegmentsJson | null;
      segment_universe: SegmentUniverseJson;
      day_segments: unknown[][] | null;
      days: unknown[][] | null;
    }>(ctx, 'api_fig_days', input, '30d', [
      { value: input.segments === 'branded', type: 'boolean' },
      { value: MAX_SEGMENT_SERIES_DAYS, type: 'integer' },
    ]);
    const { context, engines, res, info } = loadCommon(raw.common);
    const cur = res.current;
    // The shorter bound first, so that the refusal names what to change.
    if (cur && raw.segments && spanDays(cur.from, cur.to) > MAX_SEGMENT_SERIES_DAYS) {
      throw new InvalidRequest(
        `window=all covers ${spanDays(cur.from, cur.to)} days of history here, more than the ${MAX_SEGMENT_SERIES_DAYS} a daily series splits by kind of prompt: with segments=branded, ask for a part of it with from/to.`,
        'segments',
      );
    }
    if (cur && spanDays(cur.from, cur.to) > MAX_SERIES_DAYS) {
      throw new InvalidRequest(
        `window=all covers ${spanDays(cur.from, cur.to)} days of history here, more than the ${MAX_SERIES_DAYS} a daily series returns: ask for a part of it with from/to.`,
        'window',
      );
    }
    const curSums = total(engines[0]);
    const prevSums = res.previous ? total(engines[1]) : null;
    const summary = windowHeadline(headline(curSums, prevSums, info), curSums, prevSums, raw.universe);
    const segments = raw.segments
      ? segmentWindowHeadlines(segmentSums(raw.segments), raw.segment_universe, raw.universe.configured, prevSums !== null, info)
      : null;
    if (!cur) return corrected({ context, summary, segments, points: [] });
    const rows = fromArrays<DayRow>(SERIES_COLUMNS, raw.days);
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const kindsByRun = raw.segments ? daySegmentSums(raw.day_segments) : null;
    const owned = info.ownedDomains.length > 0;
    const points: Point[] = [];
    // The previous measured day of the window, for each measured day's change; none before the window's first.
    let since: { day: string; sums: Sums; kinds: KindSums | null } | null = null;
    for (const d of daysFrom(cur.from, cur.to)) {
      const r = byDay.get(d);
      if (!r) {
        points.push({ day: d, state: 'no_run' });
        continue;
      }
      const sums = sumsOf(r);
      if (!r.has_rows) sums.answers += r.pending ?? 0;
      const state = r.has_rows ? 'measured' : r.state === 'failed' ? 'extraction_failed' : 'extraction_late';
      const measured = state === 'measured';
      const kinds = kindsByRun ? (kindsByRun.get(r.id) ?? noKinds()) : null;
      const before = measured ? since : null;
      points.push({
        day: d,
        state,
        run_id: r.id,
        ...dayFiguresOf(sums, owned, before ? changeOf(sums, before) : null),
        segments: kinds ? daySegmentsOf(kinds, owned, before) : null,
      });
      if (measured) since = { day: d, sums, kinds };
    }
    return corrected({ context, summary, segments, points });
  },
});
