import * as z from 'zod';
import { NotFound } from '../../errors.js';
import { isUuid } from '../../formats.js';
import { analysisParam, limitParam, listOf } from '../contracts/common.js';
import { runRef, type runState } from '../contracts/run.js';
import { defineRead, scopedAnalysis } from '../types.js';

// The engine lifecycle is that of shared/admin/migrations/002_measurements.sql (the run's: contracts/run.ts).
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
    engines: z.array(engineCounts).describe('Per-engine counts, in the order of the analysis engines.'),
  })
  .meta({ id: 'run_summary', description: 'A run as listed: state, times and per-engine counts.' });

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
      .describe('Per-engine progress, in the order of the analysis engines.'),
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

interface RunRow {
  id: string;
  state: z.infer<typeof runState>;
  started_at: Date;
  collected_at: Date | null;
  finished_at: Date | null;
  engines: EngineRow[] | null;
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

const countsOf = (e: EngineRow) => ({ expected: e.expected, collected: e.collected, extracted: e.extracted, failed: e.failed });

/**
 * What a listed run weighs per engine, and the page size that stays within what an assistant reads at six
 * engines: quoted by the description, held to the measurement by the 1-year reliability test.
 */
export const RUN_SIZE = { engineBytes: 130, engines: 6, limit: 50 } as const;

export const listRuns = defineRead({
  name: 'list_runs',
  family: 'catalog',
  path: '/analyses/{analysis}/runs',
  summary: 'List the runs (collections) of an analysis',
  description:
    'Collection history, most recent start first: state, start, collection and finish times (null until reached), per-engine counts. Use it to see when data was collected. One page of at most limit runs (next_cursor always null); truncated says older runs exist. ' +
    `A run weighs about ${RUN_SIZE.engineBytes} bytes per engine, so a large page can exceed what an assistant reads: at ${RUN_SIZE.engines} engines ask for at most ${RUN_SIZE.limit}. get_run explains the states.`,
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
    'Run states: collecting -> extracting (collected, not yet extracted) -> finished, any -> failed. Engine states: pending -> collecting -> extracting -> done, any -> failed.',
  input: z.strictObject({
    analysis: analysisParam,
    run: z.string().describe('A run id from list_runs, or the reserved word `latest`: the most recent run, finished or not.'),
  }),
  output: runSchema,
  errors: ['analysis_not_found', 'not_found'],
  run: async (ctx, input) => {
    const latest = input.run === 'latest';
    if (!latest && !isUuid(input.run)) throw new NotFound('run');
    const [row] = await ctx.db.query<RunRow>('SELECT * FROM api_run($1::uuid, $2::uuid)', [
      scopedAnalysis(ctx).id,
      latest ? null : input.run.toLowerCase(),
    ]);
    if (!row) throw new NotFound('run');
    const engines = row.engines ?? [];
    const sum = (k: 'expected' | 'collected' | 'extracted' | 'failed') => engines.reduce((s, e) => s + e[k], 0);
    return {
      ...times(row),
      totals: { expected: sum('expected'), collected: sum('collected'), extracted: sum('extracted'), failed: sum('failed') },
      engines: engines.map((e) => ({ engine: e.engine, name: e.name, state: e.state, ...countsOf(e), recipe: e.recipe })),
    };
  },
});
