import { InternalError } from '../../errors.js';
import { COMPARISON_CHANGES, type FigureContext, type Headline, type WindowHeadline } from '../contracts/figures.js';
import { applyFdr, FDR_Q, type Moments, meanFigure, rateFigure } from '../stats.js';
import { type ReadContext, scopedAnalysis } from '../types.js';
import { spanDays, type WindowName, windowSpec } from '../windows.js';

/** Counts summed from the aggregates, named as their columns (fig_run_engine, fig_month_engine: per run, per month). */
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
  position_sq: number;
  sentiment_sq: number;
}

export const MEASURES = [
  'answers',
  'extracted',
  'mentioned',
  'tracked_mentions',
  'brand_mentions',
  'position_sum',
  'position_n',
  'sentiment_sum',
  'sentiment_n',
  'citations',
  'owned_citations',
  'position_sq',
  'sentiment_sq',
] as const;

export function zeroSums(): Sums {
  return {
    answers: 0,
    extracted: 0,
    mentioned: 0,
    tracked_mentions: 0,
    brand_mentions: 0,
    position_sum: 0,
    position_n: 0,
    sentiment_sum: 0,
    sentiment_n: 0,
    citations: 0,
    owned_citations: 0,
    position_sq: 0,
    sentiment_sq: 0,
  };
}

/** Adds b's measures into `into` (absent ones 0) and returns it: for totals built over many rows. */
export function accumulate(into: Sums, b: Partial<Sums>): Sums {
  for (const m of MEASURES) into[m] += Number(b[m] ?? 0);
  return into;
}

/**
 * Rows a figure function sends as arrays in a fixed column order (its large row sets, so that the column
 * names are not repeated on every row), as objects keyed by `columns`, which lists that order.
 */
export function fromArrays<T>(columns: readonly (keyof T & string)[], rows: unknown[][] | null): T[] {
  if (!rows) return [];
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i += 1) row[columns[i] as string] = values[i];
    return row as T;
  });
}

/** The measures of a row, as numbers (absent ones 0). */
export function sumsOf(row: Partial<Sums>): Sums {
  return accumulate(zeroSums(), row);
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

/** A collection run as the store describes it in a window (the fig_run type of the migrations). */
interface RunJson {
  id: string;
  state: 'collecting' | 'extracting' | 'finished' | 'failed';
  started_at: string;
  collected_at: string | null;
  finished_at: string | null;
  day: string;
}

/** The window as the store resolved it (the fig_window type of the migrations). */
interface WindowJson {
  name: WindowName | 'custom';
  anchor: RunJson | null;
  before: RunJson | null;
  first_day: string | null;
  cur_kind: 'run' | 'days' | 'all' | null;
  cur_from: string | null;
  cur_to: string | null;
  prev_kind: 'run' | 'days' | null;
  prev_from: string | null;
  prev_to: string | null;
}

export interface Period {
  kind: 'run' | 'days' | 'all';
  from: string;
  to: string;
}

export interface Resolved {
  name: WindowName | 'custom';
  /** Null when the analysis was never collected and the window is named (nothing to anchor on). */
  current: Period | null;
  previous: Period | null;
}

/**
 * What fig_common returns: the start of every figure read. A store function every figure read's function
 * calls, in the file of the figure read functions' SQL (shared/admin/sql/functions/figures.sql).
 */
export interface CommonJson {
  window: WindowJson;
  info: { owned_domains: string[]; engines: string[]; brand: string; engine_names: Record<string, string> | null } | null;
  engines: Array<{ period: number; engine: string; expected: number; collected: number; failed: number } & Sums> | null;
  unfinished: Array<{
    period: number;
    id: string;
    state: string;
    engine: string;
    expected: number;
    collected: number;
    extracted: number;
    failed: number;
  }> | null;
  measured_at: string | null;
  recipes: string[];
  /** Recipes served in the comparison period; null without one. */
  previous_recipes: string[] | null;
  /** Whether the prompts with collected answers differ between the periods; null without a comparison. */
  prompts_changed: boolean | null;
  /** Per period, the models each engine answered with (engines whose model is known); null without a comparison. */
  models?: Array<{ period: number; engine: string; model: string }> | null;
}

export interface Loaded {
  info: AnalysisInfo;
  res: Resolved;
  context: FigureContext;
  /** Per period (0 current, 1 previous), per engine. */
  engines: [Map<string, EngineSums>, Map<string, EngineSums>];
}

const iso = (t: string | null): string | null => (t === null ? null : new Date(t).toISOString());

const runOut = (r: RunJson) => ({
  id: r.id,
  state: r.state,
  started_at: iso(r.started_at) as string,
  collected_at: iso(r.collected_at),
  finished_at: iso(r.finished_at),
});

/**
 * Calls a figure read's store function (an api_fig_* function, in shared/admin/sql/functions/figures.sql):
 * one statement, one round trip, the window resolved by the store in the same call. `fn` is a constant of
 * the read (never input); `extra` follow the window.
 */
export async function callFigures<R extends { common: CommonJson }>(
  ctx: ReadContext,
  fn: string,
  input: { window?: WindowName | undefined; from?: string | undefined; to?: string | undefined },
  defaultWindow: WindowName,
  extra: Array<{ value: unknown; type: string }> = [],
): Promise<R> {
  const spec = windowSpec(input, defaultWindow);
  const args = [
    scopedAnalysis(ctx).id,
    spec.kind === 'named' ? spec.name : null,
    spec.kind === 'custom' ? spec.from : null,
    spec.kind === 'custom' ? spec.to : null,
  ];
  const casts = extra.map((e, i) => `, $${args.length + i + 1}::${e.type}`).join('');
  const [row] = await ctx.db.query<{ r: R }>(`SELECT ${fn}($1::uuid, $2::text, $3::date, $4::date${casts}) AS r`, [
    ...args,
    ...extra.map((e) => e.value),
  ]);
  if (!row) throw new Error(`${fn} returned no row`);
  return row.r;
}

/** What the figure state of a window is decided on: the store's window and the sums loadCommon made of it. */
export interface StateFacts {
  /** The analysis has a collected run to anchor a window on (the store's window has an anchor). */
  collected: boolean;
  /** The aggregates hold engine rows of the window: runs whose extraction finished. */
  finishedRows: boolean;
  /** Extracted answers in the window. */
  extracted: number;
  /** Runs of the window collected and still to be extracted (not failed). */
  lateRuns: number;
  /** Runs of the window that failed after their collection: over, their volumes counted, never late. */
  failedRuns: number;
  /** Answers collected in the window, those of unfinished runs included. */
  answers: number;
}

/**
 * The state of a figure read's window (docs/figures.md, Context): never collected without an anchor;
 * measured once anything in the window is extracted, or once its runs are over (finished, or failed after
 * their collection: the data contract's failed run never makes figures late); extraction_late while the
 * window holds runs or answers still to be extracted; otherwise no_data.
 */
export function figureState(facts: StateFacts): FigureContext['state'] {
  if (!facts.collected) return 'never_collected';
  if (facts.finishedRows || facts.extracted > 0) return 'measured';
  if (facts.lateRuns > 0) return 'extraction_late';
  if (facts.failedRuns > 0) return 'measured';
  if (facts.answers > 0) return 'extraction_late';
  return 'no_data';
}

/** The measurement context and per-engine sums of a figure read, from what its function returned. */
export function loadCommon(common: CommonJson): Loaded {
  const w = common.window;
  if (!common.info) throw new Error('analysis vanished between reach and read');
  const info: AnalysisInfo = {
    ownedDomains: common.info.owned_domains,
    engines: common.info.engines,
    brand: common.info.brand,
    engineNames: common.info.engine_names ?? {},
  };
  const res: Resolved = {
    name: w.name,
    current: w.cur_kind ? { kind: w.cur_kind, from: w.cur_from as string, to: w.cur_to as string } : null,
    previous: w.prev_kind ? { kind: w.prev_kind, from: w.prev_from as string, to: w.prev_to as string } : null,
  };

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
  const engineRows = common.engines ?? [];
  for (const row of engineRows) {
    const s = slot(row.period, row.engine);
    accumulate(s, row);
    s.expected += row.expected;
    s.collected += row.collected;
    s.failed += row.failed;
  }
  const lateRuns = new Set<string>();
  const failedRuns = new Set<string>();
  for (const u of common.unfinished ?? []) {
    const s = slot(u.period, u.engine);
    s.expected += u.expected;
    s.collected += u.collected;
    s.failed += u.failed;
    s.answers += u.collected;
    s.pending += u.collected;
    if (u.period === 0) (u.state === 'failed' ? failedRuns : lateRuns).add(u.id);
  }
  // Configured engines always appear in coverage, even at zero.
  for (const e of info.engines) slot(0, e);

  const curEngines = [...engines[0].entries()].sort(engineOrder(info));
  const extracted = curEngines.reduce((n, [, s]) => n + s.extracted, 0);
  const answers = curEngines.reduce((n, [, s]) => n + s.answers, 0);
  const state = figureState({
    collected: Boolean(w.anchor),
    finishedRows: engineRows.some((r) => r.period === 0),
    extracted,
    lateRuns: lateRuns.size,
    failedRuns: failedRuns.size,
    answers,
  });

  const context: FigureContext = {
    state,
    extraction_late: lateRuns.size > 0,
    window: {
      name: res.name,
      first_day: res.current?.from ?? null,
      last_day: res.current?.to ?? null,
      days: res.current ? spanDays(res.current.from, res.current.to) : null,
    },
    comparison: res.previous
      ? {
          first_day: res.previous.from,
          last_day: res.previous.to,
          run: res.previous.kind === 'run' && w.before ? runOut(w.before) : null,
          ...comparability(engines, common),
        }
      : null,
    run: res.current?.kind === 'run' && w.anchor ? runOut(w.anchor) : null,
    measured_at: iso(common.measured_at),
    recipes: common.recipes ?? [],
    multiple_comparisons: { method: 'benjamini-hochberg', q: FDR_Q, tests: 0 },
    coverage: curEngines.map(([engine, s]) => ({
      engine: engineRef(info, engine),
      expected: s.expected,
      collected: s.collected,
      extracted: s.extracted,
      failed: s.failed,
    })),
  };
  return { info, res, context, engines };
}

const sameSet = (a: Iterable<string>, b: Iterable<string>): boolean => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
};

/** What differs between the two periods' measurement: engines that answered, prompts asked, recipes used. */
function comparability(
  engines: [Map<string, EngineSums>, Map<string, EngineSums>],
  common: CommonJson,
): { comparable: boolean; changes: Array<(typeof COMPARISON_CHANGES)[number]> } {
  const answered = (m: Map<string, EngineSums>) => [...m].filter(([, s]) => s.collected > 0).map(([k]) => k);
  const differs = {
    engines: !sameSet(answered(engines[0]), answered(engines[1])),
    prompts: common.prompts_changed === true,
    recipes: !sameSet(common.recipes ?? [], common.previous_recipes ?? []),
    models: modelsChanged(common.models ?? []),
  };
  const changes = COMPARISON_CHANGES.filter((c) => differs[c]);
  return { comparable: changes.length === 0, changes };
}

/**
 * Whether an engine answered with other models in the window than in its comparison period: compared per
 * engine whose model is known in both periods (an engine without a known model in one of them says
 * nothing either way).
 */
export function modelsChanged(rows: Array<{ period: number; engine: string; model: string }>): boolean {
  const sets: [Map<string, Set<string>>, Map<string, Set<string>>] = [new Map(), new Map()];
  for (const r of rows) {
    const map = ofPeriod(sets, r.period);
    const set = map.get(r.engine) ?? new Set<string>();
    set.add(r.model);
    map.set(r.engine, set);
  }
  for (const [engine, cur] of sets[0]) {
    const prev = sets[1].get(engine);
    if (prev && !sameSet(cur, prev)) return true;
  }
  return false;
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

/** The moments of the tracked brand's first positions, and of its scored sentiments. */
export const positions = (s: Sums): Moments => ({ sum: s.position_sum, sq: s.position_sq, n: s.position_n });
export const sentiments = (s: Sums): Moments => ({ sum: s.sentiment_sum, sq: s.sentiment_sq, n: s.sentiment_n });

/** The headline figures of one slice, with the comparison slice when the window has one. */
export function headline(cur: Sums, prev: Sums | null, info: AnalysisInfo): Headline {
  const owned = info.ownedDomains.length > 0;
  const sourceReason = !owned ? 'no_owned_domains' : cur.extracted === 0 ? 'not_measured' : cur.citations === 0 ? 'no_citations' : null;
  const source = rateFigure(
    cur.owned_citations,
    cur.citations,
    owned && prev ? { k: prev.owned_citations, n: prev.citations } : null,
    owned,
  );
  return {
    answers: cur.answers,
    extracted_answers: cur.extracted,
    visibility: rateFigure(cur.mentioned, cur.extracted, prev && { k: prev.mentioned, n: prev.extracted }),
    share_of_voice: rateFigure(cur.tracked_mentions, cur.brand_mentions, prev && { k: prev.tracked_mentions, n: prev.brand_mentions }),
    average_position: meanFigure(positions(cur), prev && positions(prev)),
    sentiment: meanFigure(sentiments(cur), prev && sentiments(prev)),
    source_share: { ...source, null_reason: sourceReason },
  };
}

/**
 * The reply of a figure read with every change it tests corrected together (Benjamini–Hochberg, applyFdr):
 * each significant_fdr set, and context.multiple_comparisons saying how many tests there were. Called on
 * the whole reply, last, so that every figure it holds counts.
 */
export function corrected<T extends { context: FigureContext }>(reply: T): T {
  reply.context.multiple_comparisons = applyFdr(reply);
  return reply;
}

/** What fig_universe returns: the brands of each share of voice, per period. */
export interface UniverseJson {
  configured: number;
  periods: Array<{ period: number; direct_mentions: number; discovered: number }> | null;
}

/**
 * The window's headline (metrics, the series' summary) with the share of voice on the direct universe:
 * the tracked brand's mentions over its own and its direct competitors' mentions, and how many brands
 * each share counts.
 */
export function windowHeadline(h: Headline, cur: Sums, prev: Sums | null, universe: UniverseJson): WindowHeadline {
  const of = (period: number) => universe.periods?.find((x) => x.period === period) ?? { direct_mentions: 0, discovered: 0 };
  const n = cur.tracked_mentions + of(0).direct_mentions;
  const direct = rateFigure(
    cur.tracked_mentions,
    n,
    prev && { k: prev.tracked_mentions, n: prev.tracked_mentions + of(1).direct_mentions },
  );
  const { answers, extracted_answers, visibility, share_of_voice, ...rest } = h;
  return {
    answers,
    extracted_answers,
    visibility,
    share_of_voice,
    share_of_voice_direct: { ...direct, null_reason: cur.extracted === 0 ? 'not_measured' : n === 0 ? 'no_mentions' : null },
    share_of_voice_universe: { direct: universe.configured, discovered: of(0).discovered },
    ...rest,
  };
}

/** The order of a row of fig_branded_sums (shared/admin/sql/functions/figures.sql): period, engine, branded, then MEASURES. */
export const SEGMENT_COLUMNS = ['period', 'engine', 'branded', ...MEASURES] as const;

/** What fig_branded_sums returns; null when the caller did not ask for segments. */
export interface SegmentsJson {
  rows: unknown[][] | null;
  pending: Array<[string, boolean, number]> | null;
}

export type Segment = 'branded' | 'non_branded';
/** Per kind of prompt, per period, per engine: the sums, current answers of runs still extracting included. */
export type SegmentSums = Record<Segment, [Map<string, Sums>, Map<string, Sums>]>;

export function segmentSums(json: SegmentsJson): SegmentSums {
  const out: SegmentSums = { branded: [new Map(), new Map()], non_branded: [new Map(), new Map()] };
  const slot = (branded: boolean, period: number, engine: string): Sums => {
    const map = ofPeriod(out[branded ? 'branded' : 'non_branded'], period);
    let s = map.get(engine);
    if (!s) {
      s = zeroSums();
      map.set(engine, s);
    }
    return s;
  };
  type Row = Sums & { period: number; engine: string; branded: boolean };
  for (const r of fromArrays<Row>(SEGMENT_COLUMNS, json.rows)) accumulate(slot(r.branded, r.period, r.engine), r);
  for (const [engine, branded, n] of json.pending ?? []) slot(branded, 0, engine).answers += n;
  return out;
}

/** One value per kind of prompt, each made by `of`. */
export const bySegment = <T>(of: (k: Segment) => T): Record<Segment, T> => ({ branded: of('branded'), non_branded: of('non_branded') });

/** The headline figures of each kind of prompt, over the engines `pick` keeps (all by default). */
export function segmentHeadlines(
  seg: SegmentSums,
  hasPrevious: boolean,
  info: AnalysisInfo,
  pick: (engine: string) => boolean = () => true,
): { branded: Headline; non_branded: Headline } {
  const sum = (map: Map<string, Sums>) => {
    const s = zeroSums();
    for (const [engine, v] of map) if (pick(engine)) accumulate(s, v);
    return s;
  };
  return bySegment((k) => headline(sum(seg[k][0]), hasPrevious ? sum(seg[k][1]) : null, info));
}

/** What fig_branded_universe returns: per period and kind of prompt, the brands of the direct share of voice; null when the caller did not ask for segments. */
export type SegmentUniverseJson = Array<{ period: number; branded: boolean; direct_mentions: number; discovered: number }> | null;

/**
 * The window headline of each kind of prompt (metrics, the series' summary): its headline figures, and its
 * share of voice on the direct universe over the mentions in that kind's answers.
 */
export function segmentWindowHeadlines(
  seg: SegmentSums,
  universe: SegmentUniverseJson,
  configured: number,
  hasPrevious: boolean,
  info: AnalysisInfo,
): { branded: WindowHeadline; non_branded: WindowHeadline } {
  return bySegment((k) => {
    const cur = total(seg[k][0]);
    const prev = hasPrevious ? total(seg[k][1]) : null;
    const periods = (universe ?? []).filter((r) => r.branded === (k === 'branded'));
    return windowHeadline(headline(cur, prev, info), cur, prev, { configured, periods });
  });
}

/** Sum of the engines of one period. */
export function total(map: Map<string, Sums>): Sums {
  const s = zeroSums();
  for (const v of map.values()) accumulate(s, v);
  return s;
}

/** A row's map in a per-period pair: period 0 is the window, 1 its comparison (the only ones a figure function returns). */
export function ofPeriod<T>(pair: [T, T], period: number): T {
  if (period === 0 || period === 1) return pair[period];
  throw new InternalError(new Error(`a figure function returned a row of period ${period}; periods are 0 and 1`));
}
