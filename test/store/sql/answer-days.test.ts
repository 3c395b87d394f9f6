import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Store } from '../../../local/pglite.js';
import { seededStore } from '../../support/own-store.js';

/** answer_days (shared/admin/sql/migrations/004_answer_days.sql) must equal a direct count after every kind of write to answers. */
let store: Store;
beforeAll(async () => {
  ({ store } = await seededStore());
}, 120_000);
afterAll(() => store.pg.close());

async function drift(): Promise<unknown[]> {
  const { rows } = await store.db.query(
    `WITH direct AS (SELECT analysis_id, (captured_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS answers FROM answers GROUP BY 1, 2)
     SELECT coalesce(d.analysis_id, k.analysis_id) AS analysis_id, coalesce(d.day, k.day) AS day, d.answers AS direct, k.answers AS kept
       FROM direct d FULL JOIN answer_days k ON k.analysis_id = d.analysis_id AND k.day = d.day
      WHERE d.answers IS DISTINCT FROM k.answers`,
  );
  return rows;
}

describe('answer_days: per-day answer counts kept by triggers', () => {
  test('exact after the seed (bulk inserts)', async () => {
    expect(await drift()).toEqual([]);
    const { rows } = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM answer_days');
    expect(rows[0]!.n).toBeGreaterThan(100);
  });

  test('exact after updates that move answers across days and analyses, and after no-op updates', async () => {
    await store.db.query(`UPDATE answers SET extraction_state = extraction_state`);
    expect(await drift()).toEqual([]);
    await store.db.query(
      `UPDATE answers SET captured_at = captured_at - interval '1 day'
        WHERE id IN (SELECT id FROM answers ORDER BY id LIMIT 500)`,
    );
    expect(await drift()).toEqual([]);
    // Every answer of one day moves away: the emptied day disappears.
    await store.db.query(
      `UPDATE answers SET captured_at = captured_at + interval '3 days'
        WHERE (analysis_id, (captured_at AT TIME ZONE 'UTC')::date) = (SELECT analysis_id, day FROM answer_days ORDER BY day, analysis_id LIMIT 1)`,
    );
    expect(await drift()).toEqual([]);
  });

  test('exact after deletes (partial and whole days) and inserts', async () => {
    const victims = `(SELECT id FROM answers ORDER BY captured_at DESC, id LIMIT 300)`;
    await store.db.query(`DELETE FROM mentions WHERE answer_id IN ${victims}`);
    await store.db.query(`DELETE FROM citations WHERE answer_id IN ${victims}`);
    await store.db.query(`CREATE TEMP TABLE gone AS SELECT * FROM answers WHERE id IN ${victims}`);
    await store.db.query(`DELETE FROM answers WHERE id IN (SELECT id FROM gone)`);
    expect(await drift()).toEqual([]);
    await store.db.query(`INSERT INTO answers SELECT * FROM gone`);
    expect(await drift()).toEqual([]);
    await store.db.query(
      `INSERT INTO answers SELECT gen_random_uuid(), analysis_id, run_id, prompt_id, engine, captured_at + interval '7 hours', text, extraction_state, recipe FROM gone`,
    );
    expect(await drift()).toEqual([]);
  });

  test('emptied by TRUNCATE', async () => {
    await store.db.query('TRUNCATE answers CASCADE');
    const { rows } = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM answer_days');
    expect(rows[0]!.n).toBe(0);
  });
});
