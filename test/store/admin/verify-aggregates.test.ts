import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parseAdminArgs, runAdminCommand } from '#shared/admin/commands.js';
import type { VerifyOutcome } from '#shared/admin/verify-aggregates.js';
import { freshStore, type Store } from '../../../local/pglite.js';
import { DRIFT, servedAndRaw, writeDriftData } from '../sql/aggregate-drift.js';

/**
 * `verify-aggregates [--repair]` (docs/administration.md): rows written while triggers are disabled
 * (session_replication_role = replica, as DMS, logical replication and pg_restore --disable-triggers write)
 * leave the trigger-kept tables stale, and a month row can be off its run rows; the command reports each
 * drift, and with --repair sets every drifted row to its recomputation, after which it finds none.
 */
let store: Store;
const admin = (...argv: string[]) => runAdminCommand(store.db, parseAdminArgs(argv));
const q = (sql: string) => store.db.query(sql);
const NEW_PROMPT = 'e1000000-0000-4000-8000-0000000000ff';
const NEW_ANALYSIS = 'a1000000-0000-4000-8000-0000000000ff';

beforeAll(async () => {
  store = await freshStore();
  await writeDriftData(store.db);
}, 120_000);
afterAll(() => store?.pg.close());

describe('verify-aggregates', () => {
  test('a store written as the pipeline writes has no drift', async () => {
    const out = await admin('verify-aggregates');
    expect((out.result as VerifyOutcome).drift).toEqual([]);
    expect(out.text).toMatch(/^No drift: 12 tables/);
  });

  test('rows written under session_replication_role = replica, and a month row off by one, are each reported, then repaired', async () => {
    await q(`BEGIN;
      SET LOCAL session_replication_role = replica;
      INSERT INTO analyses (id, workspace_id, brand_id, slug, name, engines)
      VALUES ('${NEW_ANALYSIS}', '${DRIFT.workspace}', '${DRIFT.brand}', 'loaded', 'Loaded', '{chatgpt}');
      INSERT INTO prompts (id, analysis_id, group_id, text, language, created_at)
      VALUES ('${NEW_PROMPT}', '${DRIFT.analysis}', '${DRIFT.group}', 'Loaded question', 'en', '2026-01-02');
      INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state)
      VALUES ('91000000-0000-4000-8000-0000000000ff', '${DRIFT.analysis}', '${DRIFT.run(0)}', '${NEW_PROMPT}', 'chatgpt',
              '2026-02-10T06:20:00Z', 'Loaded answer', 'pending');
      UPDATE prompts SET group_id = NULL WHERE id = '${DRIFT.prompt(0)}';
      COMMIT;`);
    await q(`UPDATE fig_month_engine SET extracted = extracted - 1
              WHERE analysis_id = '${DRIFT.analysis}' AND month = '2026-03-01' AND engine = 'gemini'`);
    const groupTotal = `SELECT n FROM prompt_group_counts WHERE analysis_id = '${DRIFT.analysis}' AND group_key = '${DRIFT.group}'`;
    expect((await q(groupTotal)).rows).toEqual([{ n: 3 }]);

    const found = await admin('verify-aggregates', '--json');
    const drifted = (found.result as VerifyOutcome).drift.map((d) => [d.table, d.rows]);
    expect(drifted).toEqual([
      ['answer_days', 1],
      ['analysis_counts', 1],
      ['prompt_group_counts', 1],
      ['prompt_totals', 1],
      ['fig_run_group', expect.any(Number)],
      ['fig_month_engine', 1],
    ]);
    expect(found.text).toMatch(/^Drift found in \d+ rows of 6 tables:/);
    expect(found.text).toContain('Repair with: verify-aggregates --repair');
    const month = (found.result as VerifyOutcome).drift.find((d) => d.table === 'fig_month_engine')?.sample[0] ?? {};
    expect({ engine: month.engine, off: Number(month.expected_extracted) - Number(month.stored_extracted) }).toEqual({
      engine: 'gemini',
      off: 1,
    });
    // Reporting changed nothing.
    expect((await q(groupTotal)).rows).toEqual([{ n: 3 }]);

    const repaired = await admin('verify-aggregates', '--repair');
    expect(repaired.text).toMatch(/^Repaired \d+ rows of \d+ tables:/);
    // The group rows repaired, their months follow in the same pass.
    expect((repaired.result as VerifyOutcome).drift.map((d) => d.table)).toContain('fig_month_group');
    expect((await admin('verify-aggregates')).text).toMatch(/^No drift/);

    expect((await q(groupTotal)).rows).toEqual([{ n: 3 }]);
    expect((await q(`SELECT n FROM prompt_totals WHERE analysis_id = '${DRIFT.analysis}'`)).rows).toEqual([{ n: DRIFT.prompts + 1 }]);
    expect((await q(`SELECT n FROM analysis_counts WHERE brand_id = '${DRIFT.brand}'`)).rows).toEqual([{ n: 2 }]);
    const { served, raw } = await servedAndRaw(store.db);
    expect(served).toEqual(raw);
    // The group's answers as its prompts now give them (the loaded answer came after its run finished: no
    // aggregate holds it until the pipeline finishes that run again).
    const groups = await q(
      `SELECT (SELECT sum(answers)::int FROM fig_month_group WHERE analysis_id = '${DRIFT.analysis}' AND group_key = '${DRIFT.group}') AS kept,
              (SELECT count(*)::int FROM answers x JOIN prompts p ON p.id = x.prompt_id JOIN fig_run_prompts f ON f.run_id = x.run_id
                WHERE p.group_id = '${DRIFT.group}' AND x.prompt_id <> '${NEW_PROMPT}') AS raw`,
    );
    const g = groups.rows[0] as { kept: number; raw: number };
    expect(g.kept).toBe(g.raw);
  });

  test('the command line: --repair is its only option', () => {
    expect(parseAdminArgs(['verify-aggregates', '--repair']).values).toEqual({ repair: true });
    expect(() => parseAdminArgs(['verify-aggregates', '--fix'])).toThrow(/Unknown option/);
  });
});
