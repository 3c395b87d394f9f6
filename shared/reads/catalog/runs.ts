import { NotFound } from '../../errors.js';
import { isUuid } from '../../formats.js';
import { analysisParam, ENGINES_PER_ANALYSIS, limitParam, listOf, timestamp, uuid } from '../contracts/common.js';
import { engineRef, rateSchema } from '../contracts/rates.js';
import { runRef, type runState } from '../contracts/run.js';
import * as z from '../contracts/zod.js';
import { applyFdr, type RateFigure, rateFigure } from '../stats.js';
import { defineRead, scopedAnalysis } from '../types.js';

// The engine lifecycle is that of shared/admin/sql/migrations/002_measurements.sql (the run's: contracts/run.ts).
export const engineState = z
  .enum(['pending', 'collecting', 'extracting', 'done', 'failed'])
  .describe(
    'State of one engine inside the run. pending: not started; collecting: answers are being captured; extracting: capture ended, extraction under way; done: every collected answer went through extraction; failed: the engine stopped (for instance an outage; its answers may be missing). Transitions: pending -> collecting -> extracting -> done; any state -> failed. done and failed are final.',
  );

const counts = {
  expected: z.number().int().min(0).describe('Answers the run expects from this engine (one per prompt).'),
  collected: z.number().int().min(0).describe('Answers captured so far.'),
  extracted: z.number().int().min(0).describe('Captured answers whose brands and sources have been extracted.'),
  failed: z.number().int().min(0).describe('Answers that could not be collected.'),
};

/** One engine of a run, as listed; a run read on its own extends it with the engine's name and recipe. */
const engineCounts = z
  .object({ engine: z.string().describe('Engine key, as in the analysis engines.'), state: engineState, ...counts })
  .meta({ id: 'run_engine', description: 'One engine of a run: its state and answer counts.' });

const runSummary = runRef
  .extend({
    engines: z.array(engineCounts).max(ENGINES_PER_ANALYSIS).describe('Per-engine counts, in the order of the analysis engines.'),
  })
  .meta({ id: 'run_summary', description: 'A run as listed: state, times and per-engine counts.' });

/** Names that entered or left between two runs: at most CHANGE_LIMIT of each, with their totals. */
export const CHANGE_LIMIT = 50;

const turnover = z
  .object({
    entered: z
      .array(z.string())
      .describe(
        `In this run, not in the previous one: at most ${CHANGE_LIMIT}, most mentioned or cited first, then by name (code point order).`,
      ),
    left: z.array(z.string()).describe(`In the previous run, not in this one: at most ${CHANGE_LIMIT}, ordered alike.`),
    entered_total: z.number().int().min(0).describe('How many entered.'),
    left_total: z.number().int().min(0).describe('How many left.'),
  })
  .meta({ id: 'turnover', description: 'Names that entered or left between two runs.' });

const runChanges = z
  .object({
    previous_run: z
      .object({ id: uuid, started_at: timestamp })
      .nullable()
      .describe('The latest finished run started before this one; null for a first run.'),
    brands: turnover.nullable().describe('Brands named in extracted answers; null for a first run.'),
    domains: turnover.nullable().describe('Domains cited in extracted answers; null for a first run.'),
    visibility: rateSchema('The tracked brand’s visibility against the previous run.'),
    engines: z
      .array(
        z
          .object({ engine: engineRef, visibility: rateSchema('The tracked brand’s visibility on this engine against the previous run.') })
          .meta({ id: 'run_engine_change', description: 'One engine’s visibility change.' }),
      )
      .max(ENGINES_PER_ANALYSIS)
      .describe('Per engine of either run, the analysis engines first.'),
    models: z
      .array(
        z
          .object({
            engine: engineRef,
            previous: z.string().describe('The model the engine answered with in the previous run.'),
            current: z.string().describe('The model the engine answered with in this run.'),
          })
          .meta({ id: 'run_model_change', description: 'An engine that answered with another model than in the previous run.' }),
      )
      .max(ENGINES_PER_ANALYSIS)
      .nullable()
      .describe(
        'Engines whose model changed since the previous run (both models known and different), the analysis engines first: their figures are not like for like across the two runs. Null for a first run.',
      ),
  })
  .nullable()
  .meta({ id: 'run_changes', description: 'What changed since the previous finished run. Null while this run is not finished.' });

const runSchema = runRef
  .extend({
    totals: z.object(counts).describe('Sums over the engines of the run.'),
    engines: z
      .array(
        engineCounts.extend({
          name: z.string().describe('Display name of the engine.'),
          recipe: z
            .string()
            .nullable()
            .describe(
              'Extraction recipe that produced the mentions and citations of this engine’s answers; null while nothing is extracted, or when the engine failed before extraction.',
            ),
        }),
      )
      .max(ENGINES_PER_ANALYSIS)
      .describe('Per-engine progress, in the order of the analysis engines.'),
    changes: runChanges,
  })
  .meta({
    id: 'run',
    description:
      'One collection (run) of the analysis, with per-engine progress: state, expected, collected, extracted and failed answers, and extraction recipe.',
  });

interface EngineRow {
  engine: string;
  name: string;
  state: z.infer<typeof engineState>;
  expected: number;
  collected: number;
  extracted: number;
  failed: number;
  recipe: string | null;
}

interface ChangesJson {
  previous_run: { id: string; started_at: string } | null;
  engines: Array<{ run: 0 | 1; engine: string; name: string; mentioned: number; extracted: number }> | null;
  brands_entered: string[];
  brands_entered_total: number;
  brands_left: string[];
  brands_left_total: number;
  domains_entered: string[];
  domains_entered_total: number;
  domains_left: string[];
  domains_left_total: number;
  models?: Array<{ engine: string; previous: string; current: string }> | null;
}

interface RunRow {
  id: string;
  state: z.infer<typeof runState>;
  started_at: Date;
  collected_at: Date | null;
  finished_at: Date | null;
  engines: EngineRow[] | null;
  changes?: ChangesJson | null;
  analysis_engines?: string[];
}

const when = (d: Date | null) => (d === null ? null : d.toISOString());

function times(r: RunRow) {
  return {
    id: r.id,
    state: r.state,
    started_at: r.started_at.toISOString(),
    collected_at: when(r.collected_at),
    finished_at: when(r.finished_at),
  };
}

/** The run read's changes from what api_run_read returned (fig_run_changes, shared/admin/sql/functions/catalog.sql). */
function changesOf(c: ChangesJson | null, configured: string[]) {
  if (!c) return null;
  const hasPrev = c.previous_run !== null;
  const per = new Map<string, { name: string; cur: { k: number; n: number }; prev: { k: number; n: number } }>();
  for (const e of c.engines ?? []) {
    const slot = per.get(e.engine) ?? { name: e.name, cur: { k: 0, n: 0 }, prev: { k: 0, n: 0 } };
    slot[e.run === 0 ? 'cur' : 'prev'] = { k: e.mentioned, n: e.extracted };
    per.set(e.engine, slot);
  }
  const rank = (k: string) => (configured.includes(k) ? configured.indexOf(k) : configured.length);
  const keys = [...per.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const sum = (which: 'cur' | 'prev') =>
    keys.reduce((t, k) => ({ k: t.k + (per.get(k)?.[which].k ?? 0), n: t.n + (per.get(k)?.[which].n ?? 0) }), { k: 0, n: 0 });
  const fig = (cur: { k: number; n: number }, prev: { k: number; n: number }): RateFigure =>
    rateFigure(cur.k, cur.n, hasPrev ? prev : null);
  const names = (entered: string[], enteredTotal: number, left: string[], leftTotal: number) =>
    hasPrev ? { entered, left, entered_total: enteredTotal, left_total: leftTotal } : null;
  const changes = {
    previous_run: c.previous_run && { id: c.previous_run.id, started_at: new Date(c.previous_run.started_at).toISOString() },
    brands: names(c.brands_entered, c.brands_entered_total, c.brands_left, c.brands_left_total),
    domains: names(c.domains_entered, c.domains_entered_total, c.domains_left, c.domains_left_total),
    visibility: fig(sum('cur'), sum('prev')),
    engines: keys.map((k) => {
      const e = per.get(k) as { name: string; cur: { k: number; n: number }; prev: { k: number; n: number } };
      return { engine: { key: k, name: e.name }, visibility: fig(e.cur, e.prev) };
    }),
    models: hasPrev
      ? (c.models ?? [])
          .map((m) => ({ engine: { key: m.engine, name: per.get(m.engine)?.name ?? m.engine }, previous: m.previous, current: m.current }))
          .sort((a, b) => rank(a.engine.key) - rank(b.engine.key) || (a.engine.key < b.engine.key ? -1 : 1))
      : null,
  };
  // The visibility changes, overall and per engine, are corrected together (significant_fdr).
  applyFdr(changes);
  return changes;
}

const countsOf = (e: EngineRow) => ({ expected: e.expected, collected: e.collected, extracted: e.extracted, failed: e.failed });

/**
 * What a listed run weighs per engine, and the page size that stays within what every assistant host
 * shows whole (ASSISTANT_DEFAULT_CHARS) at six engines: quoted by the description, held to the
 * measurement by the 1-year reliability test.
 */
export const RUN_SIZE = { engineBytes: 130, engines: 6, limit: 50 } as const;

export const listRuns = defineRead({
  name: 'list_runs',
  family: 'catalog',
  path: '/analyses/{analysis}/runs',
  summary: 'List the runs (collections) of an analysis',
  description:
    'Collection history, most recent start first: state, start, collection and finish times (null until reached), per-engine counts. Use it to see when data was collected. One page of at most limit runs (next_cursor always null); truncated says older runs exist. ' +
    `A run weighs about ${RUN_SIZE.engineBytes} bytes per engine, so a large page can exceed what an assistant shows whole: at ${RUN_SIZE.engines} engines ask for at most ${RUN_SIZE.limit}. get_run explains the states.`,
  input: z.strictObject({ analysis: analysisParam, limit: limitParam(100, 30) }),
  output: listOf(
    runSummary,
    'run_list',
    'Runs of the analysis, most recent first; one page (next_cursor null, truncated when older runs exist).',
  ),
  errors: ['analysis_not_found', 'invalid_request'],
  run: async (ctx, input) => {
    const rows = await ctx.db.query<RunRow & { total: number }>('SELECT * FROM api_runs($1::uuid, $2::integer)', [
      scopedAnalysis(ctx).id,
      input.limit,
    ]);
    const total = rows[0]?.total ?? 0;
    return {
      items: rows.map((r) => ({
        ...times(r),
        engines: (r.engines ?? []).map((e) => ({ engine: e.engine, state: e.state, ...countsOf(e) })),
      })),
      next_cursor: null,
      truncated: total > rows.length,
      total,
    };
  },
});

export const getRun = defineRead({
  name: 'get_run',
  family: 'catalog',
  path: '/analyses/{analysis}/runs/{run}',
  summary: 'Get one run with per-engine progress',
  description:
    'One collection with per-engine progress (state; expected, collected, extracted and failed answers; extraction recipe, null until extracted). Use it to check whether the latest figures are complete. ' +
    'Run states: collecting -> extracting (collected, not yet extracted) -> finished, any -> failed. Engine states: pending -> collecting -> extracting -> done, any -> failed. ' +
    'changes (null until finished): brands and domains entered or left since the previous finished run; visibility change, overall and per engine, with its 95% interval (rates 0..1).',
  input: z.strictObject({
    analysis: analysisParam,
    run: z.string().describe('A run id from list_runs, or the reserved word `latest`: the most recent run, finished or not.'),
  }),
  output: runSchema,
  errors: ['analysis_not_found', 'not_found'],
  run: async (ctx, input) => {
    const latest = input.run === 'latest';
    if (!latest && !isUuid(input.run)) throw new NotFound('run');
    const analysis = scopedAnalysis(ctx).id;
    const [row] = await ctx.db.query<RunRow>('SELECT * FROM api_run_read($1::uuid, $2::uuid)', [
      analysis,
      latest ? null : input.run.toLowerCase(),
    ]);
    if (!row) throw new NotFound(latest ? 'latest run' : 'run');
    const engines = row.engines ?? [];
    const sum = (k: 'expected' | 'collected' | 'extracted' | 'failed') => engines.reduce((s, e) => s + e[k], 0);
    return {
      ...times(row),
      totals: { expected: sum('expected'), collected: sum('collected'), extracted: sum('extracted'), failed: sum('failed') },
      engines: engines.map((e) => ({ engine: e.engine, name: e.name, state: e.state, ...countsOf(e), recipe: e.recipe })),
      changes: changesOf(row.changes ?? null, row.analysis_engines ?? []),
    };
  },
});
