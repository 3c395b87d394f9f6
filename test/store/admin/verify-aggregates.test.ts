import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { parseAdminArgs, runAdminCommand } from '#shared/admin/commands.js';
import { migrate } from '#shared/admin/migrate.js';
import { RUN_TABLES, type VerifyOutcome } from '#shared/admin/verify-aggregates.js';
import type { Queryable } from '#shared/store/queryable.js';
import { freshStore, type Store } from '../../../local/pglite.js';
import { scratchDatabase, serverAnswers, TEST_SERVER_URL, untilWaitingOnLock } from '../../support/server-db.js';
import { DRIFT, removeAnswer, servedAndRaw, writeDriftData } from '../sql/aggregate-drift.js';

/**
 * `verify-aggregates [--repair]` (docs/administration.md): rows written while triggers are disabled
 * (session_replication_role = replica, as DMS, logical replication and pg_restore --disable-triggers write)
 * leave the trigger-kept tables stale, and a month row can be off its run rows; the command reports each
 * drift, and with --repair sets every drifted row to its recomputation, after which it finds none.
 */
/**
 * The brands per prompt (migration 018) on a store holding the drift data: they equal the raw rows; a run
 * row off its raw rows, a run row lost and a month row off its run rows are each reported, then repaired,
 * after which the months equal the raw rows again and each run's rows sum to its brand rows.
 */
async function brandsPerPromptDrift(db: Queryable): Promise<void> {
  const run = (...argv: string[]) => runAdminCommand(db, parseAdminArgs(argv));
  const rows = async (sql: string) => (await db.query(sql)).rows;
  const A = DRIFT.analysis;
  const perPrompt = `SELECT m.month::text, m.prompt_id, m.brand, m.mentions::int, m.answers::int FROM fig_month_prompt_brand m
                      WHERE m.analysis_id = '${A}' AND m.mentions > 0 ORDER BY 1, 2, 3`;
  // From the raw rows: per month and prompt, the tracked brand's mentions and the answers naming it.
  const rawPerPrompt = `SELECT date_trunc('month', r.started_at AT TIME ZONE 'UTC')::date::text AS month, x.prompt_id, 'Acme' AS brand,
                               count(*)::int AS mentions, count(DISTINCT x.id)::int AS answers
                          FROM answers x JOIN runs r ON r.id = x.run_id JOIN mentions m ON m.answer_id = x.id
                         WHERE x.analysis_id = '${A}' AND x.extraction_state = 'extracted' GROUP BY 1, 2 ORDER BY 1, 2, 3`;
  expect(await rows(perPrompt)).toEqual(await rows(rawPerPrompt));
  expect((await rows(perPrompt)).length).toBeGreaterThan(10);

  await db.query(
    `UPDATE fig_run_prompt_brand SET mentions = mentions + 2 WHERE run_id = '${DRIFT.run(3)}' AND prompt_id = '${DRIFT.prompt(1)}'`,
  );
  await db.query(`DELETE FROM fig_run_prompt_brand WHERE run_id = '${DRIFT.run(30)}' AND prompt_id = '${DRIFT.prompt(2)}'`);
  await db.query(`UPDATE fig_month_prompt_brand SET answers = answers - 1
                   WHERE analysis_id = '${A}' AND month = '2026-03-01' AND prompt_id = '${DRIFT.prompt(4)}'`);

  const found = (await run('verify-aggregates')).result as VerifyOutcome;
  // Each month row of a drifted run row is off its (drifted) run rows too.
  expect(found.drift.map((d) => [d.table, d.rows])).toEqual([
    ['fig_run_prompt_brand', 2],
    ['fig_month_prompt_brand', 3],
  ]);
  const sample = found.drift[0]?.sample ?? [];
  const off = sample.find((r) => r.run_id === DRIFT.run(3));
  expect(Number(off?.stored_mentions) - Number(off?.expected_mentions)).toBe(2);
  const lost = sample.find((r) => r.run_id === DRIFT.run(30));
  expect([lost?.stored_mentions, Number(lost?.expected_mentions) > 0]).toEqual([null, true]);

  const repaired = (await run('verify-aggregates', '--repair')).result as VerifyOutcome;
  // The drifted runs are finished again, which settles their months too: the month rows compared after
  // them in the same pass agree already.
  expect(repaired.drift.map((d) => [d.table, d.rows])).toEqual([['fig_run_prompt_brand', 2]]);
  expect((await run('verify-aggregates')).text).toMatch(/^No drift/);
  expect(await rows(perPrompt)).toEqual(await rows(rawPerPrompt));
  // Summed over prompts, a run's rows are its brand rows again.
  const apart = await rows(`SELECT b.run_id FROM fig_run_brand b
                             WHERE b.analysis_id = '${A}'
                               AND b.mentions <> (SELECT sum(p.mentions) FROM fig_run_prompt_brand p WHERE p.run_id = b.run_id AND p.brand = b.brand)`);
  expect(apart).toEqual([]);
}

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
    expect(out.text).toMatch(/^No drift: 16 tables/);
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
      // The answer loaded into a run already finished: its run's rows per prompt no longer match its raw rows.
      ['fig_run_prompt', 1],
      ['fig_run_group', expect.any(Number)],
      ['fig_month_engine', 1],
    ]);
    expect(found.text).toMatch(/^Drift found in \d+ rows of 7 tables:/);
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
    // The group's answers as its prompts now give them, the loaded answer included: the repair finished its
    // run again.
    const groups = await q(
      `SELECT (SELECT sum(answers)::int FROM fig_month_group WHERE analysis_id = '${DRIFT.analysis}' AND group_key = '${DRIFT.group}') AS kept,
              (SELECT count(*)::int FROM answers x JOIN prompts p ON p.id = x.prompt_id JOIN fig_run_prompts f ON f.run_id = x.run_id
                WHERE p.group_id = '${DRIFT.group}') AS raw,
              (SELECT count(*)::int FROM fig_run_prompt WHERE prompt_id = '${NEW_PROMPT}') AS loaded`,
    );
    expect((groups.rows[0] as { loaded: number }).loaded).toBe(1);
    const g = groups.rows[0] as { kept: number; raw: number };
    expect(g.kept).toBe(g.raw);
  });

  test('the brands per prompt: a run row off its raw rows, a run row lost and a month row off its runs are reported, then repaired', () =>
    brandsPerPromptDrift(store.db));

  test("a finished run's raw mentions changed: reported, and repaired by finishing the run again, its brand rows included", async () => {
    const R = DRIFT.run(5);
    const mention = `SELECT m.answer_id, m.position FROM mentions m JOIN answers x ON x.id = m.answer_id
                      WHERE x.run_id = '${R}' AND m.is_tracked ORDER BY m.answer_id, m.position LIMIT 1`;
    const [target] = (await q(mention)).rows as Array<{ answer_id: string; position: number }>;
    expect(target).toBeDefined();
    const set = (name: string, tracked: boolean) =>
      q(`UPDATE mentions SET brand_name = '${name}', is_tracked = ${tracked}
          WHERE answer_id = '${target?.answer_id}' AND position = ${target?.position}`);
    // A run's brand rows against its rows per prompt, summed: equal when the run's rows agree.
    const apart = `SELECT b.brand, b.mentions::int AS run, coalesce((SELECT sum(p.mentions)::int FROM fig_run_prompt_brand p
                                                                WHERE p.run_id = b.run_id AND p.brand = b.brand), 0) AS per_prompt
                     FROM fig_run_brand b WHERE b.run_id = '${R}'
                   UNION
                   SELECT p.brand, (SELECT b.mentions::int FROM fig_run_brand b WHERE b.run_id = p.run_id AND b.brand = p.brand), sum(p.mentions)::int
                     FROM fig_run_prompt_brand p WHERE p.run_id = '${R}' GROUP BY p.run_id, p.brand
                   EXCEPT
                   SELECT b.brand, b.mentions::int, b.mentions::int FROM fig_run_brand b WHERE b.run_id = '${R}'`;
    const zeta = `SELECT mentions::int FROM fig_run_brand WHERE run_id = '${R}' AND brand = 'Zeta Corp'`;
    await set('Zeta Corp', false);
    try {
      const found = (await admin('verify-aggregates')).result as VerifyOutcome;
      expect(found.drift.find((d) => d.table === 'fig_run_prompt_brand')?.sample.some((r) => r.run_id === R)).toBe(true);
      const repaired = (await admin('verify-aggregates', '--repair')).result as VerifyOutcome;
      // The first check to see the change (the tracked mentions per prompt) finishes the run again, which
      // rewrites its brands per prompt before their own check.
      expect(repaired.drift.map((d) => d.table)).toEqual(['fig_run_prompt']);
      expect((await admin('verify-aggregates')).text).toMatch(/^No drift/);
      // The run's brand rows follow its raw rows as its rows per prompt do: the brand it now names counts.
      expect((await q(zeta)).rows).toEqual([{ mentions: 1 }]);
      expect((await q(apart)).rows).toEqual([]);
    } finally {
      await set('Acme', true);
      await admin('verify-aggregates', '--repair');
    }
    expect((await q(zeta)).rows).toEqual([]);
    expect((await admin('verify-aggregates')).text).toMatch(/^No drift/);
  });

  test("a finished run's citations and an answer's extraction changed: reported per prompt and per domain, and repaired by finishing the run again", async () => {
    const R = DRIFT.run(6);
    const cited = (
      await q(`SELECT c.answer_id, c.ordinal, c.domain FROM citations c JOIN answers x ON x.id = c.answer_id
                              WHERE x.run_id = '${R}' AND x.extraction_state = 'extracted' ORDER BY 1, 2 LIMIT 1`)
    ).rows[0] as { answer_id: string; ordinal: number; domain: string } | undefined;
    expect(cited).toBeDefined();
    const failed = (
      await q(`SELECT id FROM answers WHERE run_id = '${R}' AND extraction_state = 'extracted' AND id <> '${cited?.answer_id}'
                              ORDER BY id LIMIT 1`)
    ).rows[0] as { id: string } | undefined;
    expect(failed).toBeDefined();
    const sourcesOfRun = `SELECT domain, citations::int, answers::int FROM fig_run_domain WHERE run_id = '${R}' ORDER BY 1`;
    const rawSources = `SELECT c.domain, count(*)::int AS citations, count(DISTINCT c.answer_id)::int AS answers
                          FROM citations c JOIN answers x ON x.id = c.answer_id
                         WHERE x.run_id = '${R}' AND x.extraction_state = 'extracted' GROUP BY 1 ORDER BY 1`;
    const extractedOfRun = `SELECT sum(extracted)::int AS n FROM fig_run_prompt WHERE run_id = '${R}'`;
    const rawExtracted = `SELECT count(*)::int AS n FROM answers WHERE run_id = '${R}' AND extraction_state = 'extracted'`;
    expect((await q(sourcesOfRun)).rows).toEqual((await q(rawSources)).rows);

    await q(`UPDATE citations SET domain = 'moved.example' WHERE answer_id = '${cited?.answer_id}' AND ordinal = ${cited?.ordinal}`);
    await q(`UPDATE answers SET extraction_state = 'failed' WHERE id = '${failed?.id}'`);
    try {
      const found = (await admin('verify-aggregates')).result as VerifyOutcome;
      const tables = found.drift.map((d) => d.table);
      expect(tables).toEqual(expect.arrayContaining(['fig_run_prompt', 'fig_run_domain']));
      const domain = found.drift.find((d) => d.table === 'fig_run_domain')?.sample ?? [];
      expect(domain).toContainEqual(expect.objectContaining({ run_id: R, domain: 'moved.example', stored_citations: null }));
      expect(((await q(extractedOfRun)).rows[0] as { n: number }).n - ((await q(rawExtracted)).rows[0] as { n: number }).n).toBe(1);

      const repaired = (await admin('verify-aggregates', '--repair')).result as VerifyOutcome;
      expect(repaired.drift.map((d) => d.table)).toEqual(expect.arrayContaining(['fig_run_prompt']));
      expect((await admin('verify-aggregates')).text).toMatch(/^No drift/);
      expect((await q(sourcesOfRun)).rows).toEqual((await q(rawSources)).rows);
      expect((await q(extractedOfRun)).rows).toEqual((await q(rawExtracted)).rows);
      const { served, raw } = await servedAndRaw(store.db);
      expect(served).toEqual(raw);
    } finally {
      await q(`UPDATE citations SET domain = '${cited?.domain}' WHERE answer_id = '${cited?.answer_id}' AND ordinal = ${cited?.ordinal}`);
      await q(`UPDATE answers SET extraction_state = 'extracted' WHERE id = '${failed?.id}'`);
      await q(`SELECT finish_run_extraction('${R}')`);
    }
    expect((await admin('verify-aggregates')).text).toMatch(/^No drift/);
  });

  test('a brand renamed after its runs finished is no drift: finished runs keep the names they were finished with', async () => {
    const rename = (name: string) => q(`UPDATE brands SET name = '${name}' WHERE id = '${DRIFT.brand}'`);
    await rename('Acme Renamed');
    try {
      const out = await admin('verify-aggregates');
      expect((out.result as VerifyOutcome).drift).toEqual([]);
    } finally {
      await rename('Acme');
    }
  });

  test('a finished run moved to another state by a writer that disabled triggers: reported, and repaired by removing its rows', async () => {
    const R = DRIFT.run(8);
    const label = 'runs (not finished, holding aggregate rows)';
    const rowsOfRun = `SELECT ${RUN_TABLES.map((t) => `(SELECT count(*)::int FROM ${t} WHERE run_id = '${R}')`).join(' + ')} AS n`;
    expect(((await q(rowsOfRun)).rows[0] as { n: number }).n).toBeGreaterThan(0);
    await q(`BEGIN; SET LOCAL session_replication_role = replica; UPDATE runs SET state = 'failed' WHERE id = '${R}'; COMMIT;`);
    try {
      const found = await admin('verify-aggregates');
      expect((found.result as VerifyOutcome).drift).toEqual([{ table: label, rows: 1, sample: [{ run_id: R, state: 'failed' }] }]);
      expect(found.text).toContain(`${label}: 1 row, e.g. {"run_id":"${R}","state":"failed"}`);
      // Reporting changed nothing: the run's rows are still counted in its month.
      expect(((await q(rowsOfRun)).rows[0] as { n: number }).n).toBeGreaterThan(0);

      const repaired = (await admin('verify-aggregates', '--repair')).result as VerifyOutcome;
      // Its months settled in the same step: no month row is off when the tables are compared after it.
      expect(repaired.drift.map((d) => [d.table, d.rows])).toEqual([[label, 1]]);
      expect((await admin('verify-aggregates')).text).toMatch(/^No drift/);
      expect((await q(rowsOfRun)).rows).toEqual([{ n: 0 }]);
      // The months hold every other run's answers, as the raw rows give them.
      const { served, raw } = await servedAndRaw(store.db, R);
      expect(served).toEqual(raw);
      expect(served).not.toEqual((await servedAndRaw(store.db)).raw);
      // The repair refuses a finished run, naming it, and writes nothing.
      await expect(q(`SELECT fig_drop_run_rows(ARRAY['${DRIFT.run(9)}'::uuid])`)).rejects.toThrow(
        `fig_drop_run_rows: run ${DRIFT.run(9)} is finished`,
      );
    } finally {
      await q(`BEGIN; SET LOCAL session_replication_role = replica; UPDATE runs SET state = 'finished' WHERE id = '${R}'; COMMIT;`);
      await q(`SELECT finish_run_extraction('${R}')`);
    }
    expect((await admin('verify-aggregates')).text).toMatch(/^No drift/);
    const { served, raw } = await servedAndRaw(store.db);
    expect(served).toEqual(raw);
  });

  test('the command line: --repair is its only option', () => {
    expect(parseAdminArgs(['verify-aggregates', '--repair']).values).toEqual({ repair: true });
    expect(() => parseAdminArgs(['verify-aggregates', '--fix'])).toThrow(/Unknown option/);
  });
});

/**
 * The same on a PostgreSQL server (DATABASE_URL's, else the machine's at 127.0.0.1:5432; in a database of
 * its own), where two sessions can finish the same run at once: the brands per prompt converge on the raw
 * rows as the other grains do. Skipped, saying so, where no server answers.
 */
describe('verify-aggregates on the PostgreSQL server', () => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  let owner: pg.Client | undefined;

  beforeAll(async () => {
    if (!(await serverAnswers(TEST_SERVER_URL))) {
      console.warn(`verify-aggregates: no PostgreSQL server at ${new URL(TEST_SERVER_URL).host}; the two-session test is skipped`);
      return;
    }
    db = await scratchDatabase(TEST_SERVER_URL, 'geo_verify');
    owner = new pg.Client({ connectionString: db.url });
    await owner.connect();
    await migrate(owner);
    await writeDriftData(owner);
  }, 120_000);
  afterAll(async () => {
    await owner?.end();
    await db?.drop();
  });

  test('two finishes of the same run at once leave no drift, the brands per prompt included', async () => {
    if (!db || !owner) return;
    const two = new pg.Client({ connectionString: db.url });
    await two.connect();
    try {
      await owner.query('BEGIN');
      await removeAnswer(owner, 12);
      await owner.query(`SELECT finish_run_extraction('${DRIFT.run(12)}')`);
      const pid = (await two.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      await two.query('BEGIN');
      const second = two.query(`SELECT finish_run_extraction('${DRIFT.run(12)}')`).then(() => two.query('COMMIT'));
      // The first session commits once the second is seen waiting for the analysis's lock.
      await untilWaitingOnLock(owner, pid);
      await owner.query('COMMIT');
      await second;
    } finally {
      await two.end();
    }
    const out = await runAdminCommand(owner, parseAdminArgs(['verify-aggregates']));
    expect(out.text).toMatch(/^No drift: 16 tables/);
  }, 60_000);

  test('the brands per prompt: drift reported, then repaired', async () => {
    if (owner) await brandsPerPromptDrift(owner);
  }, 60_000);
});
