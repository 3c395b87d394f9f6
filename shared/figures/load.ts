import type { ReadContext } from '../reads/types.js';
import { windowSpec, type WindowName } from '../windows.js';
import type { FigureContext, Headline } from './contracts.js';
import { meanFigure, rateFigure } from './stats.js';
import { Params, daysBetween, resolveWindow, runFilter, segments, type Period, type Resolved, type RunRef } from './window.js';

/** Counts summed from the aggregates (names as in migration 003). */
export interface Sums {
  answers: number;
  extracted: number;
  mentioned: number;
  tracked_mentions: number;
  brand_mentions: number;
  position_sum: number;
  position_n: number;
  sentiment_sum: number;
  sentiment_n: number;
  citations: number;
  owned_citations: number;
}

export const MEASURES = [
  'answers', 'extracted', 'mentioned', 'tracked_mentions', 'brand_mentions', 'position_sum', 'position_n',
  'sentiment_sum', 'sentiment_n', 'citations', 'owned_citations',
] as const;
export const MEASURE_COLS = MEASURES.join(', ');
/** SUM of every measure as float8 (exact for these magnitudes), so pg returns numbers, not strings. */
export const SUM_MEASURES = MEASURES.map((m) => `coalesce(sum(${m}), 0)::float8 AS ${m}`).join(', ');

export function zeroSums(): Sums {
  return Object.fromEntries(MEASURES.map((m) => [m, 0])) as unknown as Sums;
}

export function addSums(a: Sums, b: Partial<Sums>): Sums {
  const out = { ...a };
  for (const m of MEASURES) out[m] += Number(b[m] ?? 0);
  return out;
}

export interface AnalysisInfo {
  ownedDomains: string[];
  engines: string[];
  brand: string;
  engineNames: Record<string, string>;
}

export interface EngineSums extends Sums {
  expected: number;
  collected: number;
  failed: number;
  /** Collected answers of runs still extracting (not in the aggregates). */
  pending: number;
}

export interface Loaded {
  info: AnalysisInfo;
  res: Resolved;
  periods: [Period | null, Period | null];
  context: FigureContext;
  /** Per period (0 current, 1 previous), per engine. */
  engines: [Map<string, EngineSums>, Map<string, EngineSums>];
  /** Runs of the window collected but not extracted: their volumes are read live, not from aggregates. */
  unfinishedRuns: string[];
}

interface HeadRow {
  owned_domains: string[];
  engines: string[];
  brand: string;
  engine_names: Record<string, string> | null;
  last_runs: RunRef[] | null;
  first_day: string | null;
}

const normRun = (r: RunRef): RunRef => ({
  id: r.id,
  state: r.state,
  started_at: new Date(r.started_at).toISOString(),
  collected_at: r.collected_at === null ? null : new Date(r.collected_at).toISOString(),
  finished_at: r.finished_at === null ? null : new Date(r.finished_at).toISOString(),
  day: r.day,
});

/**
 * Resolves the window and loads the measurement context of a figure read: three round trips at most
 * (analysis + anchor, then engine totals and context details in parallel), each O(months + edge days).
 */
export async function loadFigures(
  ctx: ReadContext,
  input: { window?: WindowName | undefined; from?: string | undefined; to?: string | undefined },
  defaultWindow: WindowName,
): Promise<Loaded> {
  const analysisId = ctx.analysis!.id;
  const [head] = await ctx.db.query<HeadRow>(
    `SELECT a.owned_domains, a.engines, b.name AS brand,
            (SELECT json_object_agg(e.key, e.name) FROM engines e) AS engine_names,
            (SELECT json_agg(x) FROM (
               SELECT r.id, r.state, r.started_at, r.collected_at, r.finished_at,
                      to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day
                 FROM runs r WHERE r.analysis_id = a.id AND r.collected_at IS NOT NULL
                ORDER BY r.started_at DESC, r.id DESC LIMIT 2) x) AS last_runs,
            (SELECT to_char(min(r.started_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD')
               FROM runs r WHERE r.analysis_id = a.id AND r.collected_at IS NOT NULL) AS first_day
       FROM analyses a JOIN brands b ON b.id = a.brand_id WHERE a.id = $1`,
    [analysisId],
  );
  if (!head) throw new Error(`analysis ${analysisId} vanished between reach and read`);
  const runs = (head.last_runs ?? []).map(normRun);
  const info: AnalysisInfo = { ownedDomains: head.owned_domains, engines: head.engines, brand: head.brand, engineNames: head.engine_names ?? {} };
  const res = resolveWindow(windowSpec(input, defaultWindow), { last: runs[0] ?? null, previous: runs[1] ?? null, firstDay: head.first_day });
  const periods: [Period | null, Period | null] = [res.current, res.previous];

  const ep = new Params(analysisId);
  const engineSql = `SELECT period, engine, coalesce(sum(expected), 0)::int AS expected, coalesce(sum(collected), 0)::int AS collected,
      coalesce(sum(failed), 0)::int AS failed, ${SUM_MEASURES}
    FROM (${segments(ep, periods, { fine: 'fig_run_engine', month: 'fig_month_engine', cols: `engine, expected, collected, failed, ${MEASURE_COLS}` })}) s
    GROUP BY period, engine`;

  const cp = new Params(analysisId);
  const unfinished = periods
    .map((p, i) =>
      p
        ? `SELECT ${i} AS period, r.id, r.state, e.engine, e.expected, e.collected, e.extracted, e.failed
             FROM runs r JOIN run_engines e ON e.run_id = r.id
            WHERE r.analysis_id = $1 AND r.state <> 'finished' AND r.collected_at IS NOT NULL AND ${runFilter(cp, p)}`
        : null,
    )
    .filter(Boolean)
    .join(' UNION ALL ');
  const cur = res.current;
  const contextSql = `SELECT
      ${unfinished ? `(SELECT json_agg(u) FROM (${unfinished}) u)` : 'NULL::json'} AS unfinished,
      ${cur ? `(SELECT r.finished_at FROM runs r WHERE r.analysis_id = $1 AND r.state = 'finished' AND ${runFilter(cp, cur)}
                 ORDER BY r.started_at DESC LIMIT 1)` : 'NULL::timestamptz'} AS measured_at,
      (SELECT coalesce(array_agg(DISTINCT recipe ORDER BY recipe), '{}') FROM (${segments(cp, [cur], {
        fine: 'fig_run_engine',
        month: 'fig_month_recipe',
        cols: 'recipe',
        where: 'recipe IS NOT NULL',
      }).replace(/FROM fig_month_recipe WHERE/g, 'FROM fig_month_recipe WHERE n > 0 AND')}) s) AS recipes`;

  const [engineRows, [ctxRow]] = await Promise.all([
    ctx.db.query<{ period: number; engine: string; expected: number; collected: number; failed: number } & Sums>(engineSql, ep.values),
    ctx.db.query<{
      unfinished: { period: number; id: string; state: string; engine: string; expected: number; collected: number; extracted: number; failed: number }[] | null;
      measured_at: Date | null;
      recipes: string[];
    }>(contextSql, cp.values),
  ]);

  const engines: [Map<string, EngineSums>, Map<string, EngineSums>] = [new Map(), new Map()];
  const slot = (period: number, engine: string): EngineSums => {
    const map = engines[period] as Map<string, EngineSums>;
    let s = map.get(engine);
    if (!s) {
      s = { ...zeroSums(), expected: 0, collected: 0, failed: 0, pending: 0 };
      map.set(engine, s);
    }
    return s;
  };
  for (const row of engineRows) {
    const s = slot(row.period, row.engine);
    Object.assign(s, addSums(s, row));
    s.expected += Number(row.expected);
    s.collected += Number(row.collected);
    s.failed += Number(row.failed);
  }
  let late = false;
  const unfinishedRuns = new Set<string>();
  for (const u of ctxRow?.unfinished ?? []) {
    const s = slot(u.period, u.engine);
    s.expected += u.expected;
    s.collected += u.collected;
    s.failed += u.failed;
    s.answers += u.collected;
    s.pending += u.collected;
    if (u.period === 0) {
      unfinishedRuns.add(u.id);
      if (u.state !== 'failed') late = true;
    }
  }
  // Configured engines always appear in coverage, even at zero.
  for (const e of info.engines) slot(0, e);

  const curEngines = [...engines[0].entries()].sort(engineOrder(info));
  const extracted = curEngines.reduce((n, [, s]) => n + s.extracted, 0);
  const answers = curEngines.reduce((n, [, s]) => n + s.answers, 0);
  const finishedRows = engineRows.some((r) => r.period === 0);
  const state: FigureContext['state'] = !res.anchor
    ? 'never_collected'
    : finishedRows || extracted > 0
      ? 'measured'
      : unfinishedRuns.size > 0 || answers > 0
        ? 'extraction_late'
        : 'no_data';

  const runOut = (r: RunRef) => ({ id: r.id, state: r.state, started_at: r.started_at, collected_at: r.collected_at, finished_at: r.finished_at });
  const context: FigureContext = {
    state,
    extraction_late: late,
    window: {
      name: res.name,
      first_day: res.current?.from ?? null,
      last_day: res.current?.to ?? null,
      days: res.current ? daysBetween(res.current.from, res.current.to) : null,
    },
    comparison: res.previous
      ? { first_day: res.previous.from, last_day: res.previous.to, run: res.previous.kind === 'run' ? runOut(res.previous.run) : null }
      : null,
    run: res.current?.kind === 'run' ? runOut(res.current.run) : null,
    measured_at: ctxRow?.measured_at ? new Date(ctxRow.measured_at).toISOString() : null,
    recipes: ctxRow?.recipes ?? [],
    coverage: curEngines.map(([engine, s]) => ({
      engine: engineRef(info, engine),
      expected: s.expected,
      collected: s.collected,
      extracted: s.extracted,
      failed: s.failed,
    })),
  };
  return { info, res, periods, context, engines, unfinishedRuns: [...unfinishedRuns] };
}

export function engineRef(info: AnalysisInfo, key: string): { key: string; name: string } {
  return { key, name: info.engineNames[key] ?? key };
}

/** Configured engines first, in the analysis's order, then others by key. */
export function engineOrder(info: AnalysisInfo) {
  const rank = (k: string) => {
    const i = info.engines.indexOf(k);
    return i < 0 ? info.engines.length : i;
  };
  return ([a]: [string, unknown], [b]: [string, unknown]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The headline figures of one slice, with the comparison slice when the window has one. */
export function headline(cur: Sums, prev: Sums | null, info: AnalysisInfo): Headline {
  const owned = info.ownedDomains.length > 0;
  const sourceReason = !owned ? 'no_owned_domains' : cur.extracted === 0 ? 'not_measured' : cur.citations === 0 ? 'no_citations' : null;
  const source = rateFigure(cur.owned_citations, cur.citations, owned && prev ? { k: prev.owned_citations, n: prev.citations } : null, owned);
  return {
    answers: cur.answers,
    extracted_answers: cur.extracted,
    visibility: rateFigure(cur.mentioned, cur.extracted, prev && { k: prev.mentioned, n: prev.extracted }),
    share_of_voice: rateFigure(cur.tracked_mentions, cur.brand_mentions, prev && { k: prev.tracked_mentions, n: prev.brand_mentions }),
    average_position: meanFigure(cur.position_sum, cur.position_n, prev && { sum: prev.position_sum, n: prev.position_n }),
    sentiment: meanFigure(cur.sentiment_sum, cur.sentiment_n, prev && { sum: prev.sentiment_sum, n: prev.sentiment_n }),
    source_share: { ...source, null_reason: sourceReason },
  };
}

/** Sum of the engines of one period. */
export function total(map: Map<string, Sums>): Sums {
  let s = zeroSums();
  for (const v of map.values()) s = addSums(s, v);
  return s;
}
