import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { seedDemo } from '#shared/admin/demo.js';
import { MIGRATIONS_DIR, migrate } from '#shared/admin/migrate.js';
import { PROMPT_ROW_COLUMNS } from '#shared/reads/figures/groups.js';
import { fromArrays, MEASURES } from '#shared/reads/figures/load.js';
import { SERIES_COLUMNS } from '#shared/reads/figures/timeseries.js';
import type { Queryable } from '#shared/store/queryable.js';
import { EDGE_IDS, seedFigureEdgesFixture } from '../fixtures/figure-edges.js';
import { freshStore, type Store } from '../harness/pglite.js';

/**
 * Migration 012 changes how the figure functions compute, never what they return: a store filled under
 * 011 answers every figure function the same after 012 (the comparison's recipes and prompt change, the
 * per-engine sums, the series days and a group's prompt rows, the last two now sent as arrays; a run's
 * engines and changes), its backfill gives every run's row its summary and every finished run a row, and
 * runs extracted afterwards get their summary from the trigger.
 */
let store: Store;
let db: Queryable;
let before011: string;
const WINDOWS: Array<[string | null, string | null, string | null]> = [
  ['last-run', null, null],
  ['7d', null, null],
  ['30d', null, null],
  ['90d', null, null],
  ['all', null, null],
  [null, '2025-04-02', '2025-04-03'],
  [null, '2025-03-01', '2025-05-31'],
];

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
  JSON.parse(((await db.query<{ r: string }>(`SELECT (${sql})::text AS r`, params)).rows[0] as { r: string }).r) as T;

interface Snapshot {
  /** Per analysis and window: the figure functions. */
  figures: Record<string, { metrics: unknown; series: unknown; prompts: unknown }>;
  /** Per analysis: read 13 for each of its runs. */
  runs: Record<string, unknown[]>;
}

/** Every figure function this migration redefines, on every analysis, window and group, with rows as objects; `under012`: the store is migrated to 012 (rows come as arrays, read 13 is one function). */
async function snapshot(under012: boolean): Promise<Snapshot> {
  const out: Snapshot = { figures: {}, runs: {} };
  const analyses = (await db.query<{ id: string }>('SELECT id FROM analyses ORDER BY id')).rows;
  for (const { id } of analyses) {
    const groups = (await db.query<{ id: string }>('SELECT id FROM prompt_groups WHERE analysis_id = $1 ORDER BY id', [id])).rows;
    // Read 13 for every run: its engines, and what changed since the finished run before it (under 011
    // two functions the read called in one statement, under 012 the one it calls).
    const runs: unknown[] = [];
    out.runs[id] = runs;
    for (const r of (await db.query<{ id: string }>('SELECT id FROM runs WHERE analysis_id = $1 ORDER BY started_at, id', [id])).rows)
      runs.push(
        under012
          ? await one(`(SELECT json_build_object('run', x.id, 'engines', x.engines, 'changes', x.changes) FROM api_run_read($1, $2) x)`, [
              id,
              r.id,
            ])
          : {
              run: r.id,
              engines: await one('api_run_engines($1, (SELECT engines FROM analyses WHERE id = $2))', [r.id, id]),
              changes: await one('api_run_changes($1, $2)', [id, r.id]),
            },
      );
    for (const [name, from, to] of WINDOWS) {
      const args = [id, name, from, to];
      const series = await one<{ days: unknown[] | null }>(
        'api_fig_series($1, $2, $3, $4)',
        name === 'last-run' ? [id, '30d', from, to] : args,
      );
      const prompts: unknown[] = [];
      for (const g of [...groups.map((x) => x.id), null]) {
        const page = await one<{ rows?: unknown[] | null }>('api_fig_group_prompts($1, $2, $3, $4, $5, $6, 200, 0)', [
          ...args,
          g,
          g === null,
        ]);
        const rows = under012 ? fromArrays(PROMPT_ROW_COLUMNS, (page.rows ?? null) as unknown[][] | null) : (page.rows ?? []);
        prompts.push({ ...page, rows: sortRows(rows) });
      }
      out.figures[`${id} ${name ?? `${from}..${to}`}`] = {
        metrics: await one('api_fig_metrics($1, $2, $3, $4)', args),
        series: {
          ...series,
          days: under012 ? fromArrays(SERIES_COLUMNS, series.days as unknown[][] | null) : (series.days ?? []),
        },
        prompts,
      };
    }
  }
  return out;
}

/** A group's rows carry no order of their own (the read keys them by prompt and engine). */
const sortRows = (rows: unknown[]) =>
  [...rows].sort((a, b) => {
    const key = (r: unknown) => {
      const x = r as { period: number; prompt_id: string; engine: string };
      return `${x.period}|${x.prompt_id}|${x.engine}`;
    };
    return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  });

/**
 * Each run's summary row against its per-engine rows, summed here: recipes (and their digest), the row
 * count and every measure; `sums_ok` is false when any stored total differs.
 */
const recipesOfEngines = async () =>
  (
    await db.query<{ run_id: string; stored: string[]; of_engines: string[]; digest_ok: boolean; sums_ok: boolean }>(`
      SELECT f.run_id, f.recipes AS stored, f.recipes_digest = md5(f.recipes::text) AS digest_ok,
             (SELECT coalesce(array_agg(DISTINCT e.recipe ORDER BY e.recipe), '{}') FROM fig_run_engine e
               WHERE e.run_id = f.run_id AND e.recipe IS NOT NULL) AS of_engines,
             (SELECT f.engine_rows = count(*) AND ${MEASURES.map((m) => `f.${m} = coalesce(sum(e.${m}), 0)`).join(' AND ')}
                FROM fig_run_engine e WHERE e.run_id = f.run_id) AS sums_ok
        FROM fig_run_prompts f ORDER BY f.run_id`)
  ).rows;

let under011: Snapshot;
let dropped: string;

beforeAll(async () => {
  before011 = await mkdtemp(join(tmpdir(), 'geo-mig-011-'));
  for (const f of await readdir(MIGRATIONS_DIR)) if (f < '012') await copyFile(join(MIGRATIONS_DIR, f), join(before011, f));
  store = await freshStore(before011);
  db = store.db;
  await seedDemo(db, { endDate: '2025-06-30' });
  await seedFigureEdgesFixture(db);
  // A finished run without its row, as 011 left runs finished with no engine.
  dropped = (await db.query<{ id: string }>(`SELECT r.id FROM runs r WHERE r.state = 'finished' ORDER BY r.started_at DESC, r.id LIMIT 1`))
    .rows[0]?.id as string;
  under011 = await snapshot(false);
  await db.query('DELETE FROM fig_run_prompts WHERE run_id = $1', [dropped]);
  await migrate(db);
}, 240_000);

afterAll(async () => {
  await store.pg.close();
  await rm(before011, { recursive: true, force: true });
});

describe('migration 012 on a store filled under 011', () => {
  test('every figure function answers as before: comparison, sums, series days, group prompt rows', async () => {
    const after = await snapshot(true);
    expect(Object.keys(after.figures)).toEqual(Object.keys(under011.figures));
    expect(Object.keys(after.figures).length).toBeGreaterThan(20);
    for (const key of Object.keys(under011.figures)) expect([key, after.figures[key]]).toEqual([key, under011.figures[key]]);
    expect(Object.keys(after.runs)).toEqual(Object.keys(under011.runs));
    for (const key of Object.keys(under011.runs)) expect([key, after.runs[key]]).toEqual([key, under011.runs[key]]);
  });

  test('the comparisons compared are not all alike: recipes, prompts and engines differ in some', () => {
    const changes = Object.values(under011.figures).map(
      (s) => (s.metrics as { common: { recipes: string[]; previous_recipes: string[] | null; prompts_changed: boolean | null } }).common,
    );
    expect(changes.some((c) => c.prompts_changed === true)).toBe(true);
    expect(changes.some((c) => c.prompts_changed === false)).toBe(true);
    expect(changes.some((c) => c.previous_recipes !== null && c.previous_recipes.join() !== c.recipes.join())).toBe(true);
  });

  test('the run changes compared hold names that entered and left, and runs without a previous one', () => {
    type Changes = {
      previous_run: unknown;
      brands_entered: string[];
      brands_left: string[];
      domains_entered: string[];
      domains_left: string[];
    } | null;
    const all = Object.values(under011.runs).flatMap((runs) => (runs as Array<{ changes: Changes }>).map((r) => r.changes));
    expect(all.some((c) => c !== null && c.previous_run === null)).toBe(true);
    expect(all.some((c) => c === null)).toBe(true);
    for (const list of ['brands_entered', 'brands_left', 'domains_entered', 'domains_left'] as const)
      expect(all.some((c) => c !== null && c[list].length > 0)).toBe(true);
  });

  test('each run’s row holds the recipes and the sums of its per-engine rows; every finished run has a row', async () => {
    const rows = await recipesOfEngines();
    expect(rows.length).toBeGreaterThan(50);
    for (const r of rows) expect([r.stored, r.digest_ok, r.sums_ok]).toEqual([r.of_engines, true, true]);
    expect(rows.some((r) => r.stored.length > 0)).toBe(true);
    const missing = await db.query(
      `SELECT r.id FROM runs r WHERE r.state = 'finished' AND NOT EXISTS (SELECT 1 FROM fig_run_prompts f WHERE f.run_id = r.id)`,
    );
    expect(missing.rows).toEqual([]);
    const back = await db.query<{ same: boolean }>(
      `SELECT f.digest = (SELECT l.digest FROM fig_prompt_set($1) l) AS same FROM fig_run_prompts f WHERE f.run_id = $1`,
      [dropped],
    );
    expect(back.rows).toEqual([{ same: true }]);
  });

  test('a run still extracting counts its prompts, read live, beside a finished run of the same day', async () => {
    // 2025-04-03 holds E2 (finished: p1, p2); its comparison day 2025-04-02 holds E1 (the same prompts). A
    // collection of a third prompt, still extracting, on 04-03: the finished runs' digests alone are equal.
    const I = EDGE_IDS;
    const [run, p3, answer] = [
      'e0000000-0000-4000-8000-0000000000a1',
      'e0000000-0000-4000-8000-0000000000a2',
      'e0000000-0000-4000-8000-0000000000a3',
    ];
    const changed = async () =>
      (await one<{ common: { prompts_changed: boolean | null } }>(`api_fig_metrics($1, NULL, '2025-04-03', '2025-04-03')`, [I.analysis]))
        .common.prompts_changed;
    expect(await changed()).toBe(false);
    await db.query(
      `INSERT INTO prompts (id, analysis_id, text, language, created_at) VALUES ($1, $2, 'Third?', 'en', '2025-01-01T03:00:00Z')`,
      [p3, I.analysis],
    );
    await db.query(
      `INSERT INTO runs (id, analysis_id, state, started_at, collected_at) VALUES ($1, $2, 'extracting', '2025-04-03T12:00:00Z', '2025-04-03T12:40:00Z')`,
      [run, I.analysis],
    );
    await db.query(
      `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed) VALUES ($1, 'chatgpt', 'extracting', 1, 1, 0, 0)`,
      [run],
    );
    await db.query(
      `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state)
       VALUES ($1, $2, $3, $4, 'chatgpt', '2025-04-03T12:10:00Z', 'x', 'pending')`,
      [answer, I.analysis, run, p3],
    );
    expect(await changed()).toBe(true);
  });

  test('a run with as many longest recipes as engines is stored and compared (the index keeps only their digest)', async () => {
    // 16 engines, each extracted with its own recipe of 100 four-byte characters: 6.4 KB of recipe names
    // for one run, more than a b-tree entry holds (about 2.7 KB), as the data contract allows.
    const I = EDGE_IDS;
    const run = 'e0000000-0000-4000-8000-0000000000b1';
    const engines = Array.from({ length: 16 }, (_, i) => `wide-${String(i).padStart(2, '0')}`);
    // Characters that do not repeat, so that no compression brings an entry back under the limit.
    const recipe = (i: number) =>
      String(i).padStart(2, '0') + Array.from({ length: 98 }, (_, j) => String.fromCodePoint(0x1f300 + ((i * 97 + j * 31) % 700))).join('');
    await db.query(
      `INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at)
       VALUES ($1, $2, 'finished', '2025-04-05T08:00:00Z', '2025-04-05T08:40:00Z', '2025-04-05T09:00:00Z')`,
      [run, I.analysis],
    );
    for (const [i, engine] of engines.entries()) {
      await db.query(`INSERT INTO engines (key, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [engine]);
      await db.query(
        `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe) VALUES ($1, $2, 'done', 1, 1, 1, 0, $3)`,
        [run, engine, recipe(i)],
      );
      await db.query(
        `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
         VALUES ($1, $2, $3, $4, $5, '2025-04-05T08:10:00Z', 'x', 'extracted', $6)`,
        [`e0000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`, I.analysis, run, I.p1, engine, recipe(i)],
      );
    }
    await db.query('SELECT finish_run_extraction($1)', [run]);
    const stored = await db.query<{ recipes: string[] }>('SELECT recipes FROM fig_run_prompts WHERE run_id = $1', [run]);
    expect(stored.rows[0]?.recipes).toEqual(engines.map((_, i) => recipe(i)));
    const common = (
      await one<{ common: { recipes: string[]; previous_recipes: string[] | null } }>(
        `api_fig_metrics($1, NULL, '2025-04-05', '2025-04-05')`,
        [I.analysis],
      )
    ).common;
    expect(common.recipes).toEqual(engines.map((_, i) => recipe(i)));
  });

  test('a run extracted again with another recipe: its row follows, and so does the comparison', async () => {
    const run = (
      await db.query<{ id: string; analysis_id: string }>(
        `SELECT r.id, r.analysis_id FROM runs r JOIN fig_run_engine e ON e.run_id = r.id
          WHERE r.state = 'finished' GROUP BY r.id ORDER BY r.started_at DESC, r.id LIMIT 1`,
      )
    ).rows[0] as { id: string; analysis_id: string };
    await db.query(`UPDATE answers SET recipe = 'extract-v9' WHERE run_id = $1 AND extraction_state = 'extracted'`, [run.id]);
    await db.query(`UPDATE run_engines SET recipe = 'extract-v9' WHERE run_id = $1`, [run.id]);
    await db.query('SELECT finish_run_extraction($1)', [run.id]);
    const rows = await recipesOfEngines();
    for (const r of rows) expect([r.stored, r.digest_ok, r.sums_ok]).toEqual([r.of_engines, true, true]);
    expect(rows.find((r) => r.run_id === run.id)?.stored).toContain('extract-v9');
    const common = (
      await one<{ common: { recipes: string[]; previous_recipes: string[] | null } }>(`api_fig_metrics($1, 'last-run', NULL, NULL)`, [
        run.analysis_id,
      ])
    ).common;
    expect(common.recipes).toContain('extract-v9');
  });
});
