import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { freshStore, type Store } from '../../../local/pglite.js';
import { migratedScratchDatabase, untilWaitingOnLock, withClient } from '../../support/server-db.js';
import { DRIFT, removeAnswer, servedAndRaw, writeDriftData } from './aggregate-drift.js';

/**
 * finish_run_extraction (migration 016) converges on the raw rows: a call repairs whatever its run's months
 * held, finish_runs_extraction (020) writes for many runs what finishing each in turn writes, and two calls
 * for the same run at once (a pipeline retrying a finishing transaction it believes timed out) leave the
 * months equal to the raw rows; a batch takes its analyses' locks in one order whatever the order of its
 * runs, so two batches sharing analyses wait rather than deadlock. The last two need two sessions, so the
 * PostgreSQL server (PGlite serves one connection): skipped, saying so, where none answers.
 */

let store: Store;

beforeAll(async () => {
  store = await freshStore();
  await writeDriftData(store.db);
}, 120_000);
afterAll(() => store?.pg.close());

describe('a finish converges on the raw rows (embedded)', () => {
  test('the months equal the raw rows after every run is finished', async () => {
    const { served, raw } = await servedAndRaw(store.db);
    expect(served).toHaveLength(4);
    expect(served).toEqual(raw);
  });

  test('a month row off by a change (as concurrent finishes left it) is repaired by one later call for a run of that month', async () => {
    await store.db.query(
      `UPDATE fig_month_engine SET extracted = extracted - 1, mentioned = mentioned + 3
        WHERE analysis_id = '${DRIFT.analysis}' AND month = '2026-02-01' AND engine = 'chatgpt'`,
    );
    await store.db.query(
      `UPDATE fig_month_brand SET mentions = mentions + 5 WHERE analysis_id = '${DRIFT.analysis}' AND month = '2026-02-01'`,
    );
    let now = await servedAndRaw(store.db);
    expect(now.served).not.toEqual(now.raw);
    await store.db.query(`SELECT finish_run_extraction('${DRIFT.run(3)}')`);
    now = await servedAndRaw(store.db);
    expect(now.served).toEqual(now.raw);
    const brand = await store.db.query(
      `SELECT (SELECT sum(mentions)::int FROM fig_month_brand WHERE analysis_id = '${DRIFT.analysis}' AND month = '2026-02-01') AS month,
              (SELECT count(*)::int FROM mentions m JOIN answers x ON x.id = m.answer_id
                WHERE x.analysis_id = '${DRIFT.analysis}' AND x.extraction_state = 'extracted' AND x.captured_at < '2026-03-01') AS raw`,
    );
    expect(brand.rows[0]).toEqual({ month: expect.any(Number), raw: expect.any(Number) });
    expect((brand.rows[0] as { month: number }).month).toBe((brand.rows[0] as { raw: number }).raw);
  });

  test('a run whose answer is removed, finished again, moves its month by exactly that answer', async () => {
    const before = await servedAndRaw(store.db);
    await removeAnswer(store.db, 25);
    await store.db.query(`SELECT finish_run_extraction('${DRIFT.run(25)}')`);
    await store.db.query(`SELECT finish_run_extraction('${DRIFT.run(25)}')`);
    const after = await servedAndRaw(store.db);
    expect(after.served).toEqual(after.raw);
    expect(after.raw).not.toEqual(before.raw);
  });

  test('every run finished in one call (finish_runs_extraction, as a load does) writes the rows that finishing each run in turn wrote', async () => {
    const tables = (
      await store.db.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND (table_name LIKE 'fig\\_run\\_%' OR table_name LIKE 'fig\\_month\\_%')
          ORDER BY 1`,
      )
    ).rows.map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['fig_month_engine', 'fig_month_prompt_brand', 'fig_run_engine', 'fig_run_prompts']));
    const contents = async () => {
      const all: Record<string, string[]> = {};
      for (const t of tables)
        all[t] = (await store.db.query<{ row: string }>(`SELECT to_jsonb(t)::text AS row FROM ${t} t ORDER BY 1`)).rows.map((r) => r.row);
      return all;
    };
    const eachInTurn = await contents();
    expect(eachInTurn.fig_run_engine).toHaveLength(DRIFT.days * DRIFT.engines.length);
    for (const t of tables) await store.db.query(`DELETE FROM ${t}`);
    // Latest first: the order is the function's.
    const runs = Array.from({ length: DRIFT.days }, (_, d) => DRIFT.run(d)).reverse();
    // An id no run has is refused, and nothing of the call is written.
    await expect(
      store.db.query('SELECT finish_runs_extraction($1::uuid[])', [[...runs, 'f1000000-0000-4000-8000-999999999999']]),
    ).rejects.toThrow('finish_runs_extraction: run f1000000-0000-4000-8000-999999999999 is not a run, not finished');
    expect((await store.db.query('SELECT count(*)::int AS n FROM fig_run_engine')).rows).toEqual([{ n: 0 }]);
    await store.db.query('SELECT finish_runs_extraction($1::uuid[])', [runs]);
    expect(await contents()).toEqual(eachInTurn);
  });

  test('a run that is not finished is refused (its volumes are read from the run itself), and nothing is written', async () => {
    // A run of the same analysis, collected and then extracting or failed (a finished run cannot leave
    // that state: migration 025).
    const run = 'f1000000-0000-4000-8000-888888888888';
    const rows = 'SELECT count(*)::int AS n FROM fig_run_engine';
    const before = (await store.db.query(rows)).rows;
    for (const state of ['extracting', 'failed']) {
      await store.db.query('BEGIN');
      try {
        await store.db.query(
          `INSERT INTO runs (id, analysis_id, state, started_at, collected_at)
           SELECT '${run}', analysis_id, '${state}', started_at, collected_at FROM runs WHERE id = '${DRIFT.run(7)}'`,
        );
        const refused = await store.db.query(`SELECT finish_run_extraction('${run}')`).catch((e: { code?: string; message: string }) => e);
        expect(refused).toMatchObject({ code: '23514', message: `finish_runs_extraction: run ${run} is ${state}, not finished` });
      } finally {
        await store.db.query('ROLLBACK');
      }
    }
    expect((await store.db.query(rows)).rows).toEqual(before);
  });
});

describe('two finishes of the same run at once (PostgreSQL server)', () => {
  let db: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    db = await migratedScratchDatabase('geo_settle', 'settled-aggregates', 'the two-session test is');
    if (db) await withClient(db.url, writeDriftData);
  }, 120_000);

  afterAll(() => db?.drop());

  /** Two sessions on the test's database, closed whatever `work` does. */
  const twoSessions = async (url: string, work: (one: pg.Client, two: pg.Client) => Promise<void>) => {
    const one = new pg.Client({ connectionString: url });
    const two = new pg.Client({ connectionString: url });
    await one.connect();
    await two.connect();
    try {
      await work(one, two);
    } finally {
      await one.end();
      await two.end();
    }
  };

  test('the second waits for the first, and the months equal the raw rows once both commit; a third call changes nothing', async () => {
    if (!db) return;
    await twoSessions(db.url, async (one, two) => {
      const before = await servedAndRaw(one);
      expect(before.served).toEqual(before.raw);
      // Session 1 removes an answer and finishes the run, and has not committed yet.
      await one.query('BEGIN');
      await removeAnswer(one, 12);
      await one.query(`UPDATE runs SET finished_at = now() WHERE id = '${DRIFT.run(12)}'`);
      await one.query(`SELECT finish_run_extraction('${DRIFT.run(12)}')`);
      // Session 2 finishes the same run meanwhile.
      const pid = (await two.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      await two.query('BEGIN');
      const second = two.query(`SELECT finish_run_extraction('${DRIFT.run(12)}')`).then(() => two.query('COMMIT'));
      // Until session 2 is seen waiting on a lock, session 1 holds off its commit.
      await untilWaitingOnLock(one, pid);
      await one.query('COMMIT');
      await second;
      const after = await servedAndRaw(one);
      expect(after.served).toEqual(after.raw);
      expect(after.raw).not.toEqual(before.raw);
      await one.query(`SELECT finish_run_extraction('${DRIFT.run(12)}')`);
      expect(await servedAndRaw(one)).toEqual(after);
    });
  }, 60_000);

  test('a batch takes the locks of its analyses in one order, whatever the order of its runs', async () => {
    if (!db) return;
    await twoSessions(db.url, async (one, two) => {
      // A second analysis with a run of its own (no answers), beside the drift analysis.
      const other = { analysis: 'a1000000-0000-4000-8000-000000000002', run: 'f2000000-0000-4000-8000-000000000001' };
      await one.query(`INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines)
                       VALUES ('${other.analysis}', '${DRIFT.workspace}', '${DRIFT.brand}', 'drift-2', 'Drift 2', '{}', '{chatgpt}')`);
      await one.query(`INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at)
                       VALUES ('${other.run}', '${other.analysis}', 'finished', '2026-03-01T06:00:00Z', '2026-03-01T06:30:00Z', '2026-03-01T07:00:00Z')`);
      const runOf = { [DRIFT.analysis]: DRIFT.run(5), [other.analysis]: other.run };
      // The order the locks must follow (the lock's key, then the id): first and second.
      const ordered = (
        await one.query<{ id: string }>(`SELECT id::text FROM unnest($1::uuid[]) id ORDER BY hashtext(id::text), id`, [
          [DRIFT.analysis, other.analysis],
        ])
      ).rows.map((r) => r.id);
      const [first, second] = ordered as [string, string];
      // Session 2 holds the second analysis's lock; session 1's batch names the second analysis's run first.
      await two.query('BEGIN');
      await two.query('SELECT fig_lock_analysis($1)', [second]);
      const pid = (await one.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      await one.query('BEGIN');
      const batch = one.query('SELECT finish_runs_extraction($1::uuid[])', [[runOf[second], runOf[first]]]);
      // The advisory locks of session 1 (pg_locks shows the two keys as classid and objid), as it waits.
      const locks = async () =>
        (
          await two.query<{ analysis: string; granted: boolean }>(
            `SELECT a.id::text AS analysis, l.granted FROM pg_locks l
               JOIN unnest($2::uuid[]) a (id) ON l.objid = (hashtext(a.id::text)::bigint & 4294967295)::oid
              WHERE l.pid = $1 AND l.locktype = 'advisory' AND l.classid = (hashtext('fig_aggregates')::bigint & 4294967295)::oid
              ORDER BY 1`,
            [pid, ordered],
          )
        ).rows;
      let held = await locks();
      while (!held.some((l) => !l.granted)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        held = await locks();
      }
      // It waits for the second analysis holding the first: taken in array order, it would hold nothing.
      expect(held).toEqual(
        [
          { analysis: first, granted: true },
          { analysis: second, granted: false },
        ].sort((a, b) => a.analysis.localeCompare(b.analysis)),
      );
      await two.query('ROLLBACK');
      await batch;
      await one.query('COMMIT');
      expect((await one.query(`SELECT count(*)::int AS n FROM fig_run_prompts WHERE run_id = $1`, [other.run])).rows[0]?.n).toBe(1);
    });
  }, 60_000);
});
