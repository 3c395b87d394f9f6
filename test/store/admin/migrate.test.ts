import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type DemoManifest, seedDemo, seedDemoFiguresV3 } from '#shared/admin/demo.js';
import { applyReadFunctions, type MigrateOptions, migrate, SQL_DIR } from '#shared/admin/migrate.js';
import { MEASURES } from '#shared/reads/figures/load.js';
import { reads } from '#shared/reads/registry.js';
import type { ReadDef } from '#shared/reads/types.js';
import type { Db } from '#shared/store/db.js';
import type { Queryable } from '#shared/store/queryable.js';
import { freshStore, type Store } from '../../../local/pglite.js';
import { EDGE_IDS, EDGE_SECRET, seedFigureEdgesFixture } from '../../fixtures/figure-edges.js';
import { asDb, readAsFace } from '../../support/face-read.js';
import { seededStore } from '../../support/own-store.js';
import { migratedScratchDatabase, untilWaitingOnLock, withClient } from '../../support/server-db.js';

/**
 * The store's SQL reaches the same store by both roads a store takes. One store is migrated step by step
 * from 001, each migration in a migrate run of its own as successive deployments apply them, with the demo
 * and the figure-edge fixture written as soon as the schema takes them (after 003), so that every later
 * migration's backfill runs on stored data: the per-day answer counts, the analysis counts, the sums of
 * squares and the runs extracted again, the runs' summary rows (with a finished run left without its row,
 * as some stores had one). The other is migrated from empty in one run, then given the same data. Both
 * answer every read of the table the same, through the read functions a face calls, and hold the same
 * schema; applying the read functions again, or migrating again, changes nothing. A migrate run is one
 * transaction: a failure anywhere undoes it whole, a read during it (on the server) sees the store before or
 * after, and a run behind another transaction's lock gives up and tries again. Then, on the store
 * migrated step by step, what the runs' summary rows hold and how they follow new and re-extracted runs.
 */

/** The time of every read. The demo ends as the run's demo does (today, or yesterday early in the day), its keys alive. */
const NOW = new Date();
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000).toISOString().slice(0, 10);
const WINDOWS = [
  { window: 'last-run' },
  { window: '7d' },
  { window: '30d' },
  { window: '90d' },
  { window: 'all' },
  { from: '2025-04-02', to: '2025-04-03' },
  { from: '2025-03-01', to: '2025-05-31' },
  { from: daysAgo(75), to: daysAgo(12) },
];
/** Every how many answers get_answer is asked (a sample keeps the store test short; the hostile ones always). */
const ANSWER_STRIDE = 40;

let stepwise: Store;
let fromEmpty: Store;
let manifest: DemoManifest;
let endDate: string;
let dropped: string;

async function migrationVersions(): Promise<string[]> {
  return (await readdir(join(SQL_DIR, 'migrations'))).filter((f) => /^\d{3}_/.test(f)).map((f) => f.slice(0, 3));
}

/** What a store's data is: the demo, then the fixture of figure edges. */
async function writeData(db: Queryable): Promise<DemoManifest> {
  const written = await seedDemo(db, { endDate });
  await seedFigureEdgesFixture(db);
  return written;
}

beforeAll(async () => {
  // Migrated from empty in one run and seeded: the run's own demo store as its global setup made it
  // (test/support/own-store.ts), then the same fixture.
  const seeded = await seededStore();
  fromEmpty = seeded.store;
  endDate = seeded.manifest.endDate;
  await seedFigureEdgesFixture(fromEmpty.db);
  const versions = await migrationVersions();
  expect(versions.length).toBeGreaterThan(3);
  stepwise = await freshStore({ through: versions[0] });
  for (const version of versions.slice(1)) {
    expect(await migrate(stepwise.db, { through: version })).toEqual([expect.stringMatching(new RegExp(`^${version}_`))]);
    if (version === '003') manifest = await writeData(stepwise.db);
    if (version === '015') await seedDemoFiguresV3(stepwise.db, { endDate });
    // The segment functions as the release of migration 018 defined them (they classified the prompts
    // themselves): a store upgraded from it holds them until a migration drops them.
    if (version === '018')
      for (const name of ['fig_branded_sums', 'fig_branded_brands'])
        await stepwise.db.query(
          `CREATE FUNCTION ${name}(p_analysis uuid, w fig_window) RETURNS json LANGUAGE sql STABLE AS 'SELECT NULL::json'`,
        );
    // A finished run without its summary row, as stores that finished a run with no engine row had.
    if (version === '011') {
      const rows = await stepwise.db.query<{ id: string }>(
        `SELECT r.id FROM runs r WHERE r.state = 'finished' ORDER BY r.started_at DESC, r.id LIMIT 1`,
      );
      dropped = rows.rows[0]?.id as string;
      await stepwise.db.query('DELETE FROM fig_run_prompts WHERE run_id = $1', [dropped]);
    }
  }
  expect(await migrate(stepwise.db)).toEqual([]);
}, 300_000);

afterAll(async () => {
  await stepwise?.pg.close();
  await fromEmpty?.pg.close();
});

// ---------------------------------------------------------------------------------------------------
// Every read of the table, with every argument the data gives it.

interface Answered {
  read: string;
  args: Record<string, unknown>;
  key: string;
  status: number | 'served';
  body: unknown;
}

/** The identifiers a store's data offers the reads' arguments, read from that store. */
async function argumentsOf(db: Queryable, analysisId: string) {
  const ids = async (sql: string) => (await db.query<{ id: string }>(sql, [analysisId])).rows.map((r) => r.id);
  const answers = await ids('SELECT id FROM answers WHERE analysis_id = $1 ORDER BY captured_at DESC, id DESC');
  return {
    group: [...(await ids('SELECT id FROM prompt_groups WHERE analysis_id = $1 ORDER BY id')), 'none'],
    run: [...(await ids('SELECT id FROM runs WHERE analysis_id = $1 ORDER BY started_at, id')), 'latest'],
    answer: [
      ...new Set([...answers.filter((_, i) => i % ANSWER_STRIDE === 0), ...manifest.hostileAnswerIds.filter((a) => answers.includes(a))]),
    ],
  };
}

/** The argument sets of one read: one per value of each parameter the data gives, every window, both splits. */
function argumentSets(read: ReadDef, analysis: string, values: Awaited<ReturnType<typeof argumentsOf>>) {
  const shape = Object.keys(read.input.shape as object);
  let sets: Array<Record<string, unknown>> = [{ analysis }];
  const each = (name: 'group' | 'run' | 'answer') => {
    if (!shape.includes(name)) return;
    sets = sets.flatMap((s) => values[name].map((v) => ({ ...s, [name]: v })));
  };
  each('group');
  each('run');
  each('answer');
  if (shape.includes('window')) sets = sets.flatMap((s) => WINDOWS.map((w) => ({ ...s, ...w })));
  // The segments read the aggregates per prompt, which a migration may fill (018) as finishing does.
  if (shape.includes('segments')) sets = sets.flatMap((s) => [s, { ...s, segments: 'branded' }]);
  return sets;
}

/** One read as a face runs it at NOW (readAsFace); a refusal's body is its code. */
async function answer(db: Db, read: ReadDef, secret: string, args: Record<string, unknown>): Promise<Answered> {
  const got = await readAsFace(db, read, secret, args, NOW);
  return { read: read.name, args, key: secret.slice(0, 12), status: got.status, body: got.status === 'served' ? got.body : got.code };
}

/** Every read of the table against one store: each key's own reads, and each analysis its key reaches. */
async function everyRead(store: Store): Promise<Answered[]> {
  const db = asDb(store.db);
  const out: Answered[] = [];
  const keys = [...Object.values(manifest.keys), EDGE_SECRET];
  const reached = new Map<string, string>();
  for (const secret of keys)
    for (const read of reads.filter((r) => !r.path.includes('{analysis}'))) {
      let args: Record<string, unknown> = {};
      for (let page = 0; page < 100; page += 1) {
        const got = await answer(db, read, secret, args);
        out.push(got);
        const body = got.body as { items?: Array<{ slug?: string }>; next_cursor?: string | null };
        for (const item of body.items ?? []) if (item.slug && !reached.has(item.slug)) reached.set(item.slug, secret);
        if (!body.next_cursor) break;
        args = { cursor: body.next_cursor };
      }
    }
  for (const [slug, secret] of reached) {
    const id = (await store.db.query<{ id: string }>('SELECT id FROM analyses WHERE slug = $1', [slug])).rows[0]?.id as string;
    const values = await argumentsOf(store.db, id);
    for (const read of reads.filter((r) => r.path.includes('{analysis}')))
      for (const first of argumentSets(read, slug, values)) {
        let args = first;
        for (let page = 0; page < 100; page += 1) {
          const got = await answer(db, read, secret, args);
          out.push(got);
          const next = (got.body as { next_cursor?: string | null }).next_cursor;
          if (!next) break;
          args = { ...first, cursor: next };
        }
      }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The schema as the catalogs hold it.

async function schemaOf(db: Queryable): Promise<Record<string, unknown[]>> {
  const rows = async (sql: string) => (await db.query<Record<string, unknown>>(sql)).rows;
  return {
    migrations: await rows('SELECT version FROM schema_migrations ORDER BY version'),
    columns: await rows(`SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default
                           FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`),
    tables: await rows(`SELECT c.relname, c.relkind, c.reloptions::text AS options, obj_description(c.oid) AS comment
                          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`),
    columnComments: await rows(`SELECT c.relname, a.attname, col_description(c.oid, a.attnum) AS comment
                                  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
                                 WHERE n.nspname = 'public' AND col_description(c.oid, a.attnum) IS NOT NULL ORDER BY 1, 2`),
    constraints: await rows(`SELECT conrelid::regclass::text AS rel, conname, pg_get_constraintdef(oid) AS def
                               FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`),
    indexes: await rows(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`),
    triggers: await rows(`SELECT tgrelid::regclass::text AS rel, tgname, pg_get_triggerdef(oid) AS def
                            FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2`),
    types: await rows(`SELECT t.typname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod) AS type
                         FROM pg_type t JOIN pg_class c ON c.oid = t.typrelid JOIN pg_attribute a ON a.attrelid = c.oid
                        WHERE t.typnamespace = 'public'::regnamespace AND c.relkind = 'c' ORDER BY 1, 3`),
    functions: await rows(`SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, pg_get_functiondef(p.oid) AS def
                             FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1, 2`),
    grants: await rows(`SELECT table_name, privilege_type FROM information_schema.role_table_grants
                         WHERE grantee = 'geo_reader' ORDER BY 1, 2`),
    columnGrants: await rows(`SELECT table_name, column_name, privilege_type FROM information_schema.column_privileges
                               WHERE grantee = 'geo_reader' AND privilege_type = 'UPDATE' ORDER BY 1, 2`),
  };
}

describe('a store migrated step by step from 001 and one migrated from empty', () => {
  let stepwiseReads: Answered[];
  let emptyReads: Answered[];

  beforeAll(async () => {
    stepwiseReads = await everyRead(stepwise);
    emptyReads = await everyRead(fromEmpty);
  }, 300_000);

  test('answer every read the same, each argument the data gives', () => {
    expect(stepwiseReads.length).toBe(emptyReads.length);
    for (const [i, got] of stepwiseReads.entries()) expect(got).toEqual(emptyReads[i]);
  });

  test('the reads compared are every read of the table, served on data, with figures that differ', () => {
    const served = new Set(stepwiseReads.filter((r) => r.status === 'served').map((r) => r.read));
    expect([...served].sort()).toEqual(reads.map((r) => r.name).sort());
    const contexts = stepwiseReads
      .filter((r) => r.read === 'get_metrics' && r.status === 'served')
      .map((r) => (r.body as { context: { state: string; comparison: { comparable: boolean; changes: string[] } | null } }).context);
    expect(contexts.some((c) => c.comparison?.changes.includes('prompts'))).toBe(true);
    expect(contexts.some((c) => c.comparison?.changes.includes('recipes'))).toBe(true);
    expect(contexts.some((c) => c.comparison?.comparable === true)).toBe(true);
    expect(new Set(contexts.map((c) => c.state)).size).toBeGreaterThan(2);
    type Changes = { previous_run: unknown; brands: { entered: string[]; left: string[] } | null; domains: unknown } | null;
    const changes = stepwiseReads
      .filter((r) => r.read === 'get_run' && r.status === 'served')
      .map((r) => (r.body as { changes: Changes }).changes);
    expect(changes.some((c) => c === null)).toBe(true);
    expect(changes.some((c) => c !== null && c.previous_run === null)).toBe(true);
    expect(changes.some((c) => (c?.brands?.entered.length ?? 0) > 0)).toBe(true);
    expect(changes.some((c) => (c?.brands?.left.length ?? 0) > 0)).toBe(true);
  });

  test('hold the same schema: tables, columns, constraints, indexes, triggers, types, functions, grants', async () => {
    const [a, b] = [await schemaOf(stepwise.db), await schemaOf(fromEmpty.db)];
    for (const part of Object.keys(b)) expect([part, a[part]]).toEqual([part, b[part]]);
    const names = (b.functions as Array<{ proname: string }>).map((f) => f.proname);
    expect(names).toEqual(expect.arrayContaining(['api_caller', 'key_status']));
    // A function whose arguments changed keeps its former signature as a second function until a
    // migration drops it: no name is left with two.
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  test('applying the read functions again, or migrating again, changes nothing', async () => {
    const before = await schemaOf(stepwise.db);
    expect((await applyReadFunctions(stepwise.db)).length).toBeGreaterThan(0);
    expect(await migrate(stepwise.db)).toEqual([]);
    expect(await schemaOf(stepwise.db)).toEqual(before);
  });
});

/** A copy of the store's SQL with the given files added, in a folder of its own. */
async function sqlWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'geo-sql-'));
  await cp(SQL_DIR, dir, { recursive: true });
  for (const [file, sql] of Object.entries(files)) await writeFile(join(dir, file), sql);
  return dir;
}

describe('a migrate run is one transaction', () => {
  const probe = async () =>
    (
      await fromEmpty.db.query<{ table: string | null; versions: string[] }>(
        `SELECT to_regclass('migrate_probe')::text AS table,
                (SELECT coalesce(array_agg(version ORDER BY version), '{}') FROM schema_migrations WHERE version >= '900') AS versions`,
      )
    ).rows[0];

  test('a migration that fails undoes the migrations applied before it in the same run', async () => {
    const dir = await sqlWith({
      'migrations/900_probe.sql': 'CREATE TABLE migrate_probe (x int);',
      'migrations/901_fails.sql': 'SELECT 1 / 0;',
    });
    await expect(migrate(fromEmpty.db, { dir })).rejects.toThrow(/^migration 901_fails\.sql failed: division by zero/);
    expect(await probe()).toEqual({ table: null, versions: [] });
    await rm(dir, { recursive: true });
  });

  test('read functions that fail undo the run’s migrations: the store never holds one without the other', async () => {
    const dir = await sqlWith({
      'migrations/900_probe.sql': 'CREATE TABLE migrate_probe (x int);',
      'functions/zz-fails.sql': 'SELECT 1 / 0;',
    });
    await expect(migrate(fromEmpty.db, { dir })).rejects.toThrow(/^functions\/zz-fails\.sql failed: division by zero/);
    expect(await probe()).toEqual({ table: null, versions: [] });
    await rm(dir, { recursive: true });
  });

  test('a run that succeeds applies the migration, its record, the functions and the grants together', async () => {
    const dir = await sqlWith({ 'migrations/900_probe.sql': 'CREATE TABLE migrate_probe (x int);' });
    expect(await migrate(fromEmpty.db, { dir })).toEqual(['900_probe.sql']);
    expect(await probe()).toEqual({ table: 'migrate_probe', versions: ['900'] });
    const granted = await fromEmpty.db.query(
      `SELECT 1 FROM information_schema.role_table_grants WHERE grantee = 'geo_reader' AND table_name = 'migrate_probe'`,
    );
    expect(granted.rows).toHaveLength(1);
    await fromEmpty.db.query(`DROP TABLE migrate_probe; DELETE FROM schema_migrations WHERE version = '900'`);
    await rm(dir, { recursive: true });
  });
});

describe('a read while a deployment migrates (PostgreSQL server)', () => {
  let db: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    db = await migratedScratchDatabase('geo_migrate', 'migrate', 'the test of a read during a migration is');
  }, 120_000);

  afterAll(() => db?.drop());

  test('sees the functions before the run or after it, never a migration without its functions', async () => {
    if (!db) return;
    const { url } = db;
    // A migration drops a function the read functions call and define again, as 021 did; the run then
    // stops in its functions, behind a lock the test holds, while another session reads.
    const dir = await sqlWith({
      'migrations/900_swap.sql': 'DROP FUNCTION fig_name_patterns(text[]);',
      'functions/zz-gate.sql': 'LOCK TABLE migrate_gate IN ACCESS SHARE MODE;',
    });
    await withClient(url, async (gate) => {
      await gate.query('CREATE TABLE migrate_gate (x int)');
      await gate.query('BEGIN');
      await gate.query('LOCK TABLE migrate_gate IN ACCESS EXCLUSIVE MODE');
      await withClient(url, async (migrator) => {
        const pid = (await migrator.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
        const run = migrate(migrator, { dir });
        await untilWaitingOnLock(gate, pid);
        const read = await withClient(url, (reader) => reader.query<{ p: string[] }>(`SELECT fig_name_patterns(ARRAY['Acme Café']) AS p`));
        expect(read.rows).toEqual([{ p: ['% acme cafe %'] }]);
        await gate.query('COMMIT');
        expect(await run).toEqual(['900_swap.sql']);
      });
      const after = await gate.query<{ p: string[] }>(`SELECT fig_name_patterns(ARRAY['Acme Café']) AS p`);
      expect(after.rows).toEqual([{ p: ['% acme cafe %'] }]);
    });
    await rm(dir, { recursive: true });
  });
});

describe('a migrate run behind another transaction’s lock (PostgreSQL server)', () => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  let dir: string;

  beforeAll(async () => {
    db = await migratedScratchDatabase('geo_migrate_lock', 'migrate', 'the lock-wait tests are');
    if (!db) return;
    await withClient(db.url, (owner) => owner.query('CREATE TABLE migrate_held (x int)'));
    // A migration that alters a table another transaction is using: it needs that table to itself.
    dir = await sqlWith({ 'migrations/900_alter.sql': 'ALTER TABLE migrate_held ADD COLUMN y int;' });
  }, 120_000);

  afterAll(async () => {
    await db?.drop();
    if (dir) await rm(dir, { recursive: true });
  });

  /** `work` while a session of its own reads migrate_held in a transaction left open; `release` ends it. */
  const whileHeld = async (url: string, work: (release: () => Promise<void>) => Promise<void>) =>
    withClient(url, async (holder) => {
      await holder.query('BEGIN');
      await holder.query('SELECT count(*) FROM migrate_held');
      let open = true;
      const release = async () => {
        if (open) await holder.query('COMMIT');
        open = false;
      };
      try {
        await work(release);
      } finally {
        await release();
      }
    });

  const columns = (url: string) =>
    withClient(url, async (c) => ({
      y: (await c.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'migrate_held' AND column_name = 'y'`)).rowCount,
      recorded: (await c.query(`SELECT 1 FROM schema_migrations WHERE version = '900'`)).rowCount,
    }));

  /**
   * A run while the table is held, with short lock waits and no pause: it must fail with `message` and leave
   * the store as it was. Returns the attempts it said it gave up on before the last.
   */
  const failsWhileHeld = async (url: string, opts: MigrateOptions, message: RegExp): Promise<number[]> => {
    const waits: number[] = [];
    await whileHeld(url, () =>
      withClient(url, (migrator) =>
        expect(
          migrate(migrator, { dir, lockWaitMs: 100, pauseMs: 0, ...opts, onLockWait: (attempt) => void waits.push(attempt) }),
        ).rejects.toThrow(message),
      ),
    );
    expect(await columns(url)).toEqual({ y: 0, recorded: 0 });
    return waits;
  };

  test('gives up after its attempts, saying why, and leaves the store as it was', async () => {
    if (!db) return;
    const message =
      /^migrate gave up after 2 attempts: another transaction held a lock the run needs for more than 100 ms each time \(migration 900_alter\.sql failed: canceling statement due to lock timeout\); nothing was applied$/;
    expect(await failsWhileHeld(db.url, { attempts: 2 }, message)).toEqual([1]);
  });

  test('starts no attempt that would end past its deadline', async () => {
    if (!db) return;
    const message = /^migrate gave up after 1 attempt, out of time for another: another transaction held a lock/;
    expect(await failsWhileHeld(db.url, { attempts: 5, deadline: Date.now() + 50 }, message)).toEqual([]);
  });

  test('tries again once the other transaction has ended, and applies', async () => {
    if (!db) return;
    const { url } = db;
    await whileHeld(url, (release) =>
      withClient(url, async (migrator) => {
        // The first attempt gives up while the lock is held; the holder then commits, as a pipeline's load ends.
        expect(await migrate(migrator, { dir, lockWaitMs: 100, attempts: 3, pauseMs: 0, onLockWait: release })).toEqual(['900_alter.sql']);
      }),
    );
    expect(await columns(url)).toEqual({ y: 1, recorded: 1 });
  });
});

// ---------------------------------------------------------------------------------------------------
// The runs' summary rows, on the store migrated step by step (these tests write to it).

const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
  JSON.parse(((await stepwise.db.query<{ r: string }>(`SELECT (${sql})::text AS r`, params)).rows[0] as { r: string }).r) as T;

/**
 * Each run's summary row against its per-engine rows, summed here: recipes (and their digest), the row
 * count and every measure; `sums_ok` is false when any stored total differs.
 */
const recipesOfEngines = async () =>
  (
    await stepwise.db.query<{ run_id: string; stored: string[]; of_engines: string[]; digest_ok: boolean; sums_ok: boolean }>(`
      SELECT f.run_id, f.recipes AS stored, f.recipes_digest = md5(f.recipes::text) AS digest_ok,
             (SELECT coalesce(array_agg(DISTINCT e.recipe ORDER BY e.recipe), '{}') FROM fig_run_engine e
               WHERE e.run_id = f.run_id AND e.recipe IS NOT NULL) AS of_engines,
             (SELECT f.engine_rows = count(*) AND ${MEASURES.map((m) => `f.${m} = coalesce(sum(e.${m}), 0)`).join(' AND ')}
                FROM fig_run_engine e WHERE e.run_id = f.run_id) AS sums_ok
        FROM fig_run_prompts f ORDER BY f.run_id`)
  ).rows;

describe("the runs' summary rows", () => {
  test('each run’s row holds the recipes and the sums of its per-engine rows; every finished run has a row', async () => {
    const rows = await recipesOfEngines();
    expect(rows.length).toBeGreaterThan(50);
    for (const r of rows) expect([r.stored, r.digest_ok, r.sums_ok]).toEqual([r.of_engines, true, true]);
    expect(rows.some((r) => r.stored.length > 0)).toBe(true);
    const missing = await stepwise.db.query(
      `SELECT r.id FROM runs r WHERE r.state = 'finished' AND NOT EXISTS (SELECT 1 FROM fig_run_prompts f WHERE f.run_id = r.id)`,
    );
    expect(missing.rows).toEqual([]);
    const back = await stepwise.db.query<{ same: boolean }>(
      `SELECT f.digest = (SELECT l.digest FROM fig_prompt_set($1) l) AS same FROM fig_run_prompts f WHERE f.run_id = $1`,
      [dropped],
    );
    expect(back.rows).toEqual([{ same: true }]);
  });

  test('a run still extracting counts its prompts, read live, beside a finished run of the same day', async () => {
    // 2025-04-03 holds E2 (finished: p1, p2); its comparison day 2025-04-02 holds E1 (the same prompts). A
    // collection of a third prompt, still extracting, on 04-03: the finished runs' digests alone are equal.
    const I = EDGE_IDS;
    const [run, p3, answerId] = [
      'e0000000-0000-4000-8000-0000000000a1',
      'e0000000-0000-4000-8000-0000000000a2',
      'e0000000-0000-4000-8000-0000000000a3',
    ];
    const changed = async () =>
      (
        await one<{ common: { prompts_changed: boolean | null } }>(`api_fig_engines($1, NULL, '2025-04-03', '2025-04-03', false)`, [
          I.analysis,
        ])
      ).common.prompts_changed;
    expect(await changed()).toBe(false);
    await stepwise.db.query(
      `INSERT INTO prompts (id, analysis_id, text, language, created_at) VALUES ($1, $2, 'Third?', 'en', '2025-01-01T03:00:00Z')`,
      [p3, I.analysis],
    );
    await stepwise.db.query(
      `INSERT INTO runs (id, analysis_id, state, started_at, collected_at) VALUES ($1, $2, 'extracting', '2025-04-03T12:00:00Z', '2025-04-03T12:40:00Z')`,
      [run, I.analysis],
    );
    await stepwise.db.query(
      `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed) VALUES ($1, 'chatgpt', 'extracting', 1, 1, 0, 0)`,
      [run],
    );
    await stepwise.db.query(
      `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state)
       VALUES ($1, $2, $3, $4, 'chatgpt', '2025-04-03T12:10:00Z', 'x', 'pending')`,
      [answerId, I.analysis, run, p3],
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
    await stepwise.db.query(
      `INSERT INTO runs (id, analysis_id, state, started_at, collected_at, finished_at)
       VALUES ($1, $2, 'finished', '2025-04-05T08:00:00Z', '2025-04-05T08:40:00Z', '2025-04-05T09:00:00Z')`,
      [run, I.analysis],
    );
    for (const [i, engine] of engines.entries()) {
      await stepwise.db.query(`INSERT INTO engines (key, name) VALUES ($1, $1) ON CONFLICT DO NOTHING`, [engine]);
      await stepwise.db.query(
        `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed, recipe) VALUES ($1, $2, 'done', 1, 1, 1, 0, $3)`,
        [run, engine, recipe(i)],
      );
      await stepwise.db.query(
        `INSERT INTO answers (id, analysis_id, run_id, prompt_id, engine, captured_at, text, extraction_state, recipe)
         VALUES ($1, $2, $3, $4, $5, '2025-04-05T08:10:00Z', 'x', 'extracted', $6)`,
        [`e0000000-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`, I.analysis, run, I.p1, engine, recipe(i)],
      );
    }
    await stepwise.db.query('SELECT finish_run_extraction($1)', [run]);
    const stored = await stepwise.db.query<{ recipes: string[] }>('SELECT recipes FROM fig_run_prompts WHERE run_id = $1', [run]);
    expect(stored.rows[0]?.recipes).toEqual(engines.map((_, i) => recipe(i)));
    const common = (
      await one<{ common: { recipes: string[]; previous_recipes: string[] | null } }>(
        `api_fig_engines($1, NULL, '2025-04-05', '2025-04-05', false)`,
        [I.analysis],
      )
    ).common;
    expect(common.recipes).toEqual(engines.map((_, i) => recipe(i)));
  });

  test('a run extracted again with another recipe: its row follows, and so does the comparison', async () => {
    const run = (
      await stepwise.db.query<{ id: string; analysis_id: string }>(
        `SELECT r.id, r.analysis_id FROM runs r JOIN fig_run_engine e ON e.run_id = r.id
          WHERE r.state = 'finished' GROUP BY r.id ORDER BY r.started_at DESC, r.id LIMIT 1`,
      )
    ).rows[0] as { id: string; analysis_id: string };
    await stepwise.db.query(`UPDATE answers SET recipe = 'extract-v9' WHERE run_id = $1 AND extraction_state = 'extracted'`, [run.id]);
    await stepwise.db.query(`UPDATE run_engines SET recipe = 'extract-v9' WHERE run_id = $1`, [run.id]);
    await stepwise.db.query('SELECT finish_run_extraction($1)', [run.id]);
    const rows = await recipesOfEngines();
    for (const r of rows) expect([r.stored, r.digest_ok, r.sums_ok]).toEqual([r.of_engines, true, true]);
    expect(rows.find((r) => r.run_id === run.id)?.stored).toContain('extract-v9');
    const common = (
      await one<{ common: { recipes: string[]; previous_recipes: string[] | null } }>(
        `api_fig_engines($1, 'last-run', NULL, NULL, false)`,
        [run.analysis_id],
      )
    ).common;
    expect(common.recipes).toContain('extract-v9');
  });
});
