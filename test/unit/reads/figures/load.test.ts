import { describe, expect, test } from '@jest/globals';
import { type CommonJson, figureState, loadCommon, type StateFacts, type Sums, zeroSums } from '#shared/reads/figures/load.js';

/**
 * What a figure read makes of its store function's common part, on answers built here by hand: the
 * state of the window (decided alone first, then through loadCommon), the coverage per engine, the
 * comparison and the window. Every figure expected below is worked out in the comments beside it, not
 * by calling the code under test.
 */

describe('figureState: the state of a window, from the facts alone', () => {
  const nothing: StateFacts = { collected: true, finishedRows: false, extracted: 0, lateRuns: 0, failedRuns: 0, answers: 0 };

  test.each<[string, ReturnType<typeof figureState>, Partial<StateFacts>]>([
    ['no anchor, nothing else', 'never_collected', { collected: false }],
    // The anchor decides first: whatever else the facts say, an analysis never collected stays so.
    [
      'no anchor, even with rows, extractions and answers',
      'never_collected',
      { collected: false, finishedRows: true, extracted: 5, lateRuns: 1, answers: 9 },
    ],
    ['collected, nothing in the window', 'no_data', {}],
    ['one extracted answer', 'measured', { extracted: 1 }],
    // Rows of finished runs whose every extraction failed: measured, with nothing to measure.
    ['finished rows, nothing extracted', 'measured', { finishedRows: true }],
    ['finished rows beside an unfinished run', 'measured', { finishedRows: true, lateRuns: 1, answers: 3 }],
    ['one unfinished run, no answer collected yet', 'extraction_late', { lateRuns: 1 }],
    ['one collected answer, no run counted', 'extraction_late', { answers: 1 }],
    ['an unfinished run and its answers', 'extraction_late', { lateRuns: 2, answers: 7 }],
    // A run that failed after its collection is over: it never makes the window late.
    ['a run failed after its collection, and its answers', 'measured', { failedRuns: 1, answers: 4 }],
    ['a failed run beside a run still extracting', 'extraction_late', { failedRuns: 1, lateRuns: 1, answers: 6 }],
    // Extraction outranks lateness: anything extracted makes the window measured.
    ['one extracted answer beside an unfinished run and its answers', 'measured', { extracted: 1, lateRuns: 1, answers: 1 }],
  ])('%s: %s', (_case, state, facts) => {
    expect(figureState({ ...nothing, ...facts })).toBe(state);
  });
});

type EngineRow = NonNullable<CommonJson['engines']>[number];
type UnfinishedRow = NonNullable<CommonJson['unfinished']>[number];
type RunJson = NonNullable<CommonJson['window']['anchor']>;

/** Every measure at 0. */
const ZERO: Sums = zeroSums();

/** An engine row of the aggregates, its measures 0 unless given. */
function row(period: number, engine: string, counts: Partial<Omit<EngineRow, 'period' | 'engine'>>): EngineRow {
  return { period, engine, expected: 0, collected: 0, failed: 0, ...ZERO, ...counts };
}

/** The store writes timestamps with the session's offset and without trailing zeros. */
const RUN_A: RunJson = {
  id: 'run-a',
  state: 'finished',
  started_at: '2026-02-23T23:30:00-01:00',
  collected_at: '2026-02-24T01:10:00+00:00',
  finished_at: '2026-02-24T01:45:12.5+00:00',
  day: '2026-02-24',
};
const RUN_B: RunJson = {
  id: 'run-b',
  state: 'extracting',
  started_at: '2026-03-02T08:00:00+00:00',
  collected_at: '2026-03-02T08:40:00+00:00',
  finished_at: null,
  day: '2026-03-02',
};
/** RUN_A and RUN_B as the context shows them: UTC, milliseconds. */
const RUN_A_OUT = {
  id: 'run-a',
  state: 'finished',
  started_at: '2026-02-24T00:30:00.000Z',
  collected_at: '2026-02-24T01:10:00.000Z',
  finished_at: '2026-02-24T01:45:12.500Z',
};
const RUN_B_OUT = {
  id: 'run-b',
  state: 'extracting',
  started_at: '2026-03-02T08:00:00.000Z',
  collected_at: '2026-03-02T08:40:00.000Z',
  finished_at: null,
};

const INFO = {
  owned_domains: ['acme.example'],
  // Not alphabetical: coverage follows this order.
  engines: ['perplexity', 'chatgpt', 'gemini', 'claude'],
  brand: 'Acme',
  engine_names: { chatgpt: 'ChatGPT', perplexity: 'Perplexity', claude: 'Claude', copilot: 'Copilot' },
};

const LAST_RUN: CommonJson['window'] = {
  name: 'last-run',
  anchor: RUN_B,
  before: RUN_A,
  first_day: '2026-01-10',
  cur_kind: 'run',
  cur_from: '2026-03-02',
  cur_to: '2026-03-02',
  prev_kind: 'run',
  prev_from: '2026-02-24',
  prev_to: '2026-02-24',
};
const SEVEN_DAYS: CommonJson['window'] = {
  ...LAST_RUN,
  name: '7d',
  cur_kind: 'days',
  cur_from: '2026-02-24',
  cur_to: '2026-03-02',
  prev_kind: 'days',
  prev_from: '2026-02-17',
  prev_to: '2026-02-23',
};

/** A store answer: the analysis above, nothing measured, the same recipes and prompts in both periods, unless given. */
function commonOf(parts: Partial<CommonJson>): CommonJson {
  return {
    window: LAST_RUN,
    info: INFO,
    engines: null,
    unfinished: null,
    measured_at: null,
    recipes: ['r1'],
    previous_recipes: ['r1'],
    prompts_changed: false,
    ...parts,
  };
}

const engine = (key: string, name: string, expected: number, collected: number, extracted: number, failed: number) => ({
  engine: { key, name },
  expected,
  collected,
  extracted,
  failed,
});

/** Configured engines the store returned nothing for, at zero, in the analysis's order. */
const ZERO_COVERAGE = [
  engine('perplexity', 'Perplexity', 0, 0, 0, 0),
  engine('chatgpt', 'ChatGPT', 0, 0, 0, 0),
  engine('gemini', 'gemini', 0, 0, 0, 0),
  engine('claude', 'Claude', 0, 0, 0, 0),
];

describe('loadCommon: coverage and sums per engine', () => {
  const chatgpt0 = {
    expected: 20,
    collected: 18,
    failed: 2,
    answers: 18,
    extracted: 17,
    mentioned: 9,
    tracked_mentions: 12,
    brand_mentions: 30,
    position_sum: 25,
    position_n: 9,
    sentiment_sum: 4.5,
    sentiment_n: 9,
    citations: 40,
    owned_citations: 6,
    position_sq: 81,
    sentiment_sq: 3.25,
  };
  const loaded = loadCommon(
    commonOf({
      window: SEVEN_DAYS,
      engines: [
        // Engines the analysis does not configure (any longer), in no particular order.
        row(0, 'zeta', { expected: 4, collected: 4, answers: 4, extracted: 4, mentioned: 1 }),
        row(0, 'chatgpt', chatgpt0),
        row(0, 'alpha', { expected: 2, collected: 1, failed: 1, answers: 1 }),
        row(0, 'perplexity', { expected: 20, collected: 20, answers: 20, extracted: 19, mentioned: 5 }),
        row(1, 'chatgpt', { expected: 20, collected: 20, answers: 20, extracted: 20, mentioned: 10 }),
        row(1, 'perplexity', { expected: 20, failed: 20 }),
      ],
      unfinished: [
        // RUN_B, still extracting, in the window: perplexity and gemini.
        { period: 0, id: 'run-b', state: 'extracting', engine: 'perplexity', expected: 10, collected: 7, extracted: 3, failed: 1 },
        { period: 0, id: 'run-b', state: 'extracting', engine: 'gemini', expected: 10, collected: 2, extracted: 0, failed: 8 },
        // A run of the comparison period that failed after its collection.
        { period: 1, id: 'run-x', state: 'failed', engine: 'chatgpt', expected: 5, collected: 3, extracted: 0, failed: 2 },
      ],
      measured_at: '2026-03-01T10:00:00.5+00:00',
      recipes: ['r2', 'r1'],
      previous_recipes: ['r1', 'r2'],
    }),
  );

  test("configured engines first in the analysis's order, those at zero included, then the others by key", () => {
    expect(loaded.context.coverage).toEqual([
      // perplexity: the row's 20 expected + the unfinished run's 10 = 30; 20 + 7 = 27 collected; 19 extracted
      // (the unfinished run's 3 are not in the aggregates yet); 0 + 1 failed.
      engine('perplexity', 'Perplexity', 30, 27, 19, 1),
      engine('chatgpt', 'ChatGPT', 20, 18, 17, 2),
      // gemini: the unfinished run only.
      engine('gemini', 'gemini', 10, 2, 0, 8),
      // claude: configured, nothing returned: at zero, with its name.
      engine('claude', 'Claude', 0, 0, 0, 0),
      engine('alpha', 'alpha', 2, 1, 0, 1),
      engine('zeta', 'zeta', 4, 4, 4, 0),
    ]);
  });

  test("an unfinished run's collected answers add to answers and pending; its extracted ones to nothing", () => {
    const current = loaded.engines[0];
    expect([...current.keys()].sort()).toEqual(['alpha', 'chatgpt', 'claude', 'gemini', 'perplexity', 'zeta']);
    // perplexity: 20 answers of the row + 7 collected by RUN_B = 27, 7 of them pending; extracted 19 (row only).
    expect(current.get('perplexity')).toEqual({
      ...ZERO,
      expected: 30,
      collected: 27,
      failed: 1,
      pending: 7,
      answers: 27,
      extracted: 19,
      mentioned: 5,
    });
    expect(current.get('gemini')).toEqual({ ...ZERO, expected: 10, collected: 2, failed: 8, pending: 2, answers: 2 });
    expect(current.get('chatgpt')).toEqual({ ...chatgpt0, pending: 0 });
    expect(current.get('claude')).toEqual({ ...ZERO, expected: 0, collected: 0, failed: 0, pending: 0 });
    // The comparison period: chatgpt's row (20 expected, 20 collected) + the failed run (5, 3, failed 2).
    expect(loaded.engines[1].get('chatgpt')).toEqual({
      ...ZERO,
      expected: 25,
      collected: 23,
      failed: 2,
      pending: 3,
      answers: 23,
      extracted: 20,
      mentioned: 10,
    });
    // Configured engines appear at zero in the window only.
    expect([...loaded.engines[1].keys()].sort()).toEqual(['chatgpt', 'perplexity']);
  });

  test('the context around the coverage: state, lateness, window, comparison, measurement date, recipes', () => {
    expect(loaded.context).toEqual({
      state: 'measured',
      extraction_late: true,
      // 2026-02-24 to 2026-03-02: 24..28 February (5 days) and 1..2 March, 7.
      window: { name: '7d', first_day: '2026-02-24', last_day: '2026-03-02', days: 7 },
      // Engines with collected answers: perplexity, chatgpt, gemini, alpha, zeta in the window; chatgpt alone
      // before (perplexity collected nothing). Recipes are the same set; prompts unchanged.
      comparison: { first_day: '2026-02-17', last_day: '2026-02-23', run: null, comparable: false, changes: ['engines'] },
      run: null,
      measured_at: '2026-03-01T10:00:00.500Z',
      recipes: ['r2', 'r1'],
      // Nothing tested yet: a read counts its tests once its figures are built (corrected).
      multiple_comparisons: { method: 'benjamini-hochberg', q: 0.05, tests: 0 },
      // Asserted engine by engine above.
      coverage: expect.any(Array),
    });
    expect(loaded.info).toEqual({
      ownedDomains: ['acme.example'],
      engines: ['perplexity', 'chatgpt', 'gemini', 'claude'],
      brand: 'Acme',
      engineNames: INFO.engine_names,
    });
  });

  test('engine names: none from the store means every engine named by its key', () => {
    const { context } = loadCommon(commonOf({ info: { ...INFO, engine_names: null }, engines: [row(0, 'copilot', { collected: 1 })] }));
    expect(context.coverage.map((c) => c.engine)).toEqual([
      { key: 'perplexity', name: 'perplexity' },
      { key: 'chatgpt', name: 'chatgpt' },
      { key: 'gemini', name: 'gemini' },
      { key: 'claude', name: 'claude' },
      { key: 'copilot', name: 'copilot' },
    ]);
  });

  test('an analysis gone between the reach check and the read is refused, not read as empty', () => {
    expect(() => loadCommon(commonOf({ info: null }))).toThrow('analysis vanished between reach and read');
  });
});

describe('loadCommon: the state and extraction_late', () => {
  const late = (period: number, state: string): UnfinishedRow => ({
    period,
    id: `run-${period}-${state}`,
    state,
    engine: 'chatgpt',
    expected: 4,
    collected: 3,
    extracted: 0,
    failed: 1,
  });

  const window0 = row(0, 'chatgpt', { expected: 4, collected: 4, answers: 4, extracted: 4 });

  test.each<[string, string, boolean, Partial<CommonJson>]>([
    ['never collected', 'never_collected', false, { window: { ...LAST_RUN, anchor: null, before: null } }],
    ['rows of the window', 'measured', false, { engines: [window0] }],
    // Every extraction failed: the rows are there, nothing is extracted.
    ['rows of the window, nothing extracted', 'measured', false, { engines: [{ ...window0, extracted: 0 }] }],
    ['rows of the comparison period only', 'no_data', false, { engines: [{ ...window0, period: 1 }] }],
    ['a run of the window still extracting', 'extraction_late', true, { unfinished: [late(0, 'extracting')] }],
    ['a run of the window still collecting', 'extraction_late', true, { unfinished: [late(0, 'collecting')] }],
    // Failed after its collection: its answers are collected and will never be extracted; nothing is late,
    // and the window is over (measured, with nothing to measure), as one of runs whose extractions all failed.
    ['a run of the window that failed', 'measured', false, { unfinished: [late(0, 'failed')] }],
    ['a run of the comparison period still extracting', 'no_data', false, { unfinished: [late(1, 'extracting')] }],
    ['rows of the window and a run of it still extracting', 'measured', true, { engines: [window0], unfinished: [late(0, 'extracting')] }],
    ['nothing at all', 'no_data', false, {}],
  ])('%s: %s, extraction_late %s', (_case, state, extractionLate, parts) => {
    const { context } = loadCommon(commonOf(parts));
    expect(context.state).toBe(state);
    expect(context.extraction_late).toBe(extractionLate);
  });

  test('a run of the window that failed still counts in the volumes', () => {
    const { context, engines } = loadCommon(commonOf({ unfinished: [late(0, 'failed')] }));
    expect(context.coverage[1]).toEqual(engine('chatgpt', 'ChatGPT', 4, 3, 0, 1));
    expect(engines[0].get('chatgpt')).toMatchObject({ answers: 3, pending: 3, extracted: 0 });
  });
});

describe('loadCommon: what differs between the window and its comparison', () => {
  const both = (engineKey: string) => [row(0, engineKey, { collected: 2, answers: 2 }), row(1, engineKey, { collected: 3, answers: 3 })];

  const perplexityLate: UnfinishedRow = {
    period: 1,
    id: 'run-a',
    state: 'extracting',
    engine: 'perplexity',
    expected: 2,
    collected: 1,
    extracted: 0,
    failed: 1,
  };

  test.each<[string, string[], Partial<CommonJson>]>([
    ['nothing', [], { engines: both('chatgpt') }],
    ['another engine answered in the window', ['engines'], { engines: [...both('chatgpt'), row(0, 'perplexity', { collected: 1 })] }],
    ['another engine answered before', ['engines'], { engines: [...both('chatgpt'), row(1, 'perplexity', { collected: 1 })] }],
    // An engine asked but with nothing collected did not answer: no difference.
    ['an engine that collected nothing before', [], { engines: [...both('chatgpt'), row(1, 'perplexity', { expected: 5, failed: 5 })] }],
    [
      "an unfinished run's collected answers make its engine one that answered",
      ['engines'],
      { engines: both('chatgpt'), unfinished: [perplexityLate] },
    ],
    ['the prompts', ['prompts'], { engines: both('chatgpt'), prompts_changed: true }],
    ['the prompts, unknown', [], { engines: both('chatgpt'), prompts_changed: null }],
    [
      'the recipes: the same set, in another order and repeated',
      [],
      { engines: both('chatgpt'), recipes: ['r2', 'r1', 'r1'], previous_recipes: ['r1', 'r2'] },
    ],
    ['the recipes: one more before', ['recipes'], { engines: both('chatgpt'), recipes: ['r1'], previous_recipes: ['r1', 'r3'] }],
    ['the recipes: another one', ['recipes'], { engines: both('chatgpt'), recipes: ['r2'], previous_recipes: ['r1'] }],
    // A comparison period without any collection: no engine answered, no recipe, its prompts differ.
    [
      'everything, in the order engines, prompts, recipes',
      ['engines', 'prompts', 'recipes'],
      { engines: [row(0, 'chatgpt', { collected: 2 })], previous_recipes: [], prompts_changed: true },
    ],
  ])('%s: changes %j', (_case, changes, parts) => {
    const { comparison } = loadCommon(commonOf(parts)).context;
    expect(comparison).toMatchObject({ comparable: changes.length === 0, changes });
  });
});

describe('loadCommon: the window, its run and its comparison', () => {
  test('last-run: one day, the run the figures concern, the previous collection as the comparison', () => {
    const { context, res } = loadCommon(commonOf({ window: LAST_RUN }));
    expect(res).toEqual({
      name: 'last-run',
      current: { kind: 'run', from: '2026-03-02', to: '2026-03-02' },
      previous: { kind: 'run', from: '2026-02-24', to: '2026-02-24' },
    });
    expect(context.window).toEqual({ name: 'last-run', first_day: '2026-03-02', last_day: '2026-03-02', days: 1 });
    expect(context.run).toEqual(RUN_B_OUT);
    expect(context.comparison).toEqual({ first_day: '2026-02-24', last_day: '2026-02-24', run: RUN_A_OUT, comparable: true, changes: [] });
  });

  test('last-run after a single collection: no comparison', () => {
    const { context, res } = loadCommon(
      commonOf({ window: { ...LAST_RUN, before: null, prev_kind: null, prev_from: null, prev_to: null }, previous_recipes: null }),
    );
    expect(res.previous).toBeNull();
    expect(context.run).toEqual(RUN_B_OUT);
    expect(context.comparison).toBeNull();
  });

  test('Nd: no run, a comparison period of days without a run even when a previous collection exists', () => {
    const { context } = loadCommon(commonOf({ window: SEVEN_DAYS }));
    expect(context.run).toBeNull();
    expect(context.comparison).toEqual({ first_day: '2026-02-17', last_day: '2026-02-23', run: null, comparable: true, changes: [] });
  });

  test('all: from the first collection to the anchor, no comparison', () => {
    const window: CommonJson['window'] = {
      ...LAST_RUN,
      name: 'all',
      cur_kind: 'all',
      cur_from: '2026-01-10',
      cur_to: '2026-03-02',
      prev_kind: null,
      prev_from: null,
      prev_to: null,
    };
    const { context } = loadCommon(commonOf({ window, previous_recipes: null }));
    // 10..31 January (22 days) + February 2026 (28) + 1..2 March (2) = 52.
    expect(context.window).toEqual({ name: 'all', first_day: '2026-01-10', last_day: '2026-03-02', days: 52 });
    expect(context.run).toBeNull();
    expect(context.comparison).toBeNull();
  });

  test('custom, holding no run: its days all the same, no_data, the configured engines at zero', () => {
    const window: CommonJson['window'] = {
      ...LAST_RUN,
      name: 'custom',
      cur_kind: 'days',
      cur_from: '2024-02-28',
      cur_to: '2024-03-01',
      prev_kind: 'days',
      prev_from: '2024-02-25',
      prev_to: '2024-02-27',
    };
    const { context } = loadCommon(commonOf({ window, recipes: [], previous_recipes: [] }));
    // 28 and 29 February 2024 (a leap year), 1 March: 3 days.
    expect(context).toEqual({
      state: 'no_data',
      extraction_late: false,
      window: { name: 'custom', first_day: '2024-02-28', last_day: '2024-03-01', days: 3 },
      comparison: { first_day: '2024-02-25', last_day: '2024-02-27', run: null, comparable: true, changes: [] },
      run: null,
      measured_at: null,
      recipes: [],
      multiple_comparisons: { method: 'benjamini-hochberg', q: 0.05, tests: 0 },
      coverage: ZERO_COVERAGE,
    });
  });

  test('never collected, named window: no day at all, no run, no comparison', () => {
    const window: CommonJson['window'] = {
      name: '30d',
      anchor: null,
      before: null,
      first_day: null,
      cur_kind: null,
      cur_from: null,
      cur_to: null,
      prev_kind: null,
      prev_from: null,
      prev_to: null,
    };
    const { context, res } = loadCommon(commonOf({ window, recipes: [], previous_recipes: null, prompts_changed: null }));
    expect(res).toEqual({ name: '30d', current: null, previous: null });
    expect(context).toEqual({
      state: 'never_collected',
      extraction_late: false,
      window: { name: '30d', first_day: null, last_day: null, days: null },
      comparison: null,
      run: null,
      measured_at: null,
      recipes: [],
      multiple_comparisons: { method: 'benjamini-hochberg', q: 0.05, tests: 0 },
      coverage: ZERO_COVERAGE,
    });
  });

  test('never collected, custom window: the days as asked, still never_collected', () => {
    const window: CommonJson['window'] = {
      name: 'custom',
      anchor: null,
      before: null,
      first_day: null,
      cur_kind: 'days',
      cur_from: '2026-03-01',
      cur_to: '2026-03-10',
      prev_kind: 'days',
      prev_from: '2026-02-19',
      prev_to: '2026-02-28',
    };
    const { context } = loadCommon(commonOf({ window, recipes: [], previous_recipes: [] }));
    expect(context.state).toBe('never_collected');
    // 1..10 March: 10 days; the comparison, the 10 days before: 19..28 February 2026.
    expect(context.window).toEqual({ name: 'custom', first_day: '2026-03-01', last_day: '2026-03-10', days: 10 });
    expect(context.comparison).toEqual({ first_day: '2026-02-19', last_day: '2026-02-28', run: null, comparable: true, changes: [] });
  });
});
