import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Store } from '../../../local/pglite.js';
import { seededStore } from '../../support/own-store.js';
import { refusalOf } from './refusals.js';

/**
 * An answer comes from one of its run's engines, and a finished run stays finished
 * (shared/admin/sql/migrations/025): the store refuses an answer, by insert or update, whose engine is not
 * one of its run's run_engines rows, the removal of a run_engines row its answers name, and any change of
 * a finished run's state; the writes of the data contract's steps pass.
 */
let store: Store;
beforeAll(async () => {
  ({ store } = await seededStore());
}, 120_000);
afterAll(() => store.pg.close());

const one = async <T>(sql: string): Promise<T> => (await store.db.query(sql)).rows[0] as T;

describe('an answer comes from one of its run engines', () => {
  test('an engine its run does not collect from, by insert or update, and removing an engine its answers name: refused, 23503', async () => {
    // An answer of a run that lacks one of the engines the store knows.
    const answer = await one<{ id: string; run_id: string; engine: string; missing: string }>(
      `SELECT a.id, a.run_id, a.engine, e.key AS missing
         FROM answers a CROSS JOIN engines e
        WHERE NOT EXISTS (SELECT 1 FROM run_engines r WHERE r.run_id = a.run_id AND r.engine = e.key)
        ORDER BY a.id, e.key LIMIT 1`,
    );
    expect(answer).toBeDefined();
    const cases = [
      [
        `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state)
         SELECT gen_random_uuid(), analysis_id, run_id, prompt_id, '${answer.missing}', captured_at, 'x', 'pending'
           FROM answers WHERE id = '${answer.id}'`,
      ],
      [`UPDATE answers SET engine = '${answer.missing}' WHERE id = '${answer.id}'`],
      [`DELETE FROM run_engines WHERE run_id = '${answer.run_id}' AND engine = '${answer.engine}'`],
    ];
    for (const statements of cases) {
      const refused = await refusalOf(store.db, ...statements);
      expect({ statements, code: refused?.code, constraint: refused?.constraint }).toEqual({
        statements,
        code: '23503',
        constraint: 'answers_of_run_engines',
      });
    }
  });

  test('the same answer passes once its run declares the engine (a run_engines row, as the contract starts a run)', async () => {
    const answer = await one<{ id: string; run_id: string; missing: string }>(
      `SELECT a.id, a.run_id, e.key AS missing
         FROM answers a CROSS JOIN engines e
        WHERE NOT EXISTS (SELECT 1 FROM run_engines r WHERE r.run_id = a.run_id AND r.engine = e.key)
        ORDER BY a.id, e.key LIMIT 1`,
    );
    expect(
      await refusalOf(
        store.db,
        `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed)
         VALUES ('${answer.run_id}', '${answer.missing}', 'collecting', 1, 1, 0, 0)`,
        `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state)
         SELECT gen_random_uuid(), analysis_id, run_id, prompt_id, '${answer.missing}', captured_at, 'x', 'pending'
           FROM answers WHERE id = '${answer.id}'`,
      ),
    ).toBeNull();
  });
});

describe('a finished run stays finished', () => {
  test('moving a finished run to any other state: refused, 23514, naming the run; finishing it again passes', async () => {
    const { id } = await one<{ id: string }>(`SELECT id FROM runs WHERE state = 'finished' ORDER BY started_at DESC, id LIMIT 1`);
    for (const state of ['collecting', 'extracting', 'failed']) {
      const refused = await refusalOf(store.db, `UPDATE runs SET state = '${state}', finished_at = NULL WHERE id = '${id}'`);
      expect({ state, code: refused?.code, constraint: refused?.constraint }).toEqual({
        state,
        code: '23514',
        constraint: 'runs_stay_finished',
      });
      expect(refused?.message).toBe(`run ${id}: a finished run stays finished (asked to become ${state})`);
    }
    expect(
      await refusalOf(
        store.db,
        `UPDATE runs SET state = 'finished', finished_at = finished_at + interval '1 minute' WHERE id = '${id}'`,
        `SELECT finish_run_extraction('${id}')`,
      ),
    ).toBeNull();
  });

  test("a run's way to finished, or to failed, passes as the data contract writes it", async () => {
    const { id, analysis_id } = await one<{ id: string; analysis_id: string }>(
      `SELECT gen_random_uuid() AS id, analysis_id FROM runs ORDER BY started_at DESC LIMIT 1`,
    );
    const start = `INSERT INTO runs (id, analysis_id, state, started_at) VALUES ('${id}', '${analysis_id}', 'collecting', '2099-12-01T00:00:00Z')`;
    const collected = `UPDATE runs SET state = 'extracting', collected_at = '2099-12-01T01:00:00Z' WHERE id = '${id}'`;
    expect(
      await refusalOf(
        store.db,
        start,
        collected,
        `UPDATE runs SET state = 'finished', finished_at = '2099-12-01T02:00:00Z' WHERE id = '${id}'`,
        `SELECT finish_run_extraction('${id}')`,
      ),
    ).toBeNull();
    expect(await refusalOf(store.db, start, collected, `UPDATE runs SET state = 'failed' WHERE id = '${id}'`)).toBeNull();
  });
});
