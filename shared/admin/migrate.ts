import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Queryable } from '../store/queryable.js';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The store's SQL: shared/admin/sql in the repository, sql/ beside the migrate function's bundle (both
 * beside this module). Three parts, applied in this order:
 *   migrations/NNN_*.sql  tables, types, constraints, triggers, backfills and the write functions they
 *                         call; each applied once, in order, never edited once applied;
 *   functions/*.sql       the read functions, one file per family, each function defined there only and
 *                         written CREATE OR REPLACE; applied whole by every run;
 *   grants.sql            what the service's role may do, granted again by every run.
 */
export const SQL_DIR = join(here, 'sql');

const MIGRATION_FILE = /^\d{3}_[a-z0-9_]+\.sql$/;

export interface MigrateOptions {
  /** The SQL directory (default SQL_DIR). */
  dir?: string;
  /**
   * Apply the migrations up to this version only (e.g. '011'), and not the read functions, which are
   * written for the store every migration leaves: the store as its migrations alone leave it at that
   * version, for a test that writes data before a later migration's backfill.
   */
  through?: string;
  /** How long one attempt waits for any lock before giving up (default LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** Attempts before a run that keeps waiting for locks fails (default LOCK_ATTEMPTS). */
  attempts?: number;
  /** The pause between two attempts (default LOCK_PAUSE_MS). */
  pauseMs?: number;
  /**
   * When the caller must be done (epoch ms): no attempt starts that the last one's duration says would end
   * past it (the migrate function's own timeout).
   */
  deadline?: number;
  /** Told each time an attempt gave up on a lock, before the pause. */
  onLockWait?: (attempt: number, err: Error) => void | Promise<void>;
}

/**
 * A migration that alters a table waits for every transaction using it (a pipeline's long load), and
 * while it waits every read of that table queues behind it: the service would stall for as long as the
 * other transaction lasts. So an attempt waits for a lock this long at most, gives up (the whole run
 * rolls back), and tries again after a pause, until its attempts or its deadline (the migrate function's
 * timeout) run out.
 */
const LOCK_WAIT_MS = 5_000;
const LOCK_ATTEMPTS = 6;
const LOCK_PAUSE_MS = 5_000;

/** PostgreSQL's lock_not_available, which a lock wait past lock_timeout raises. */
const LOCK_NOT_AVAILABLE = '55P03';

function isLockWait(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if ((e as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return true;
  return false;
}

async function sqlFiles(dir: string, pattern: RegExp): Promise<string[]> {
  return (await readdir(dir)).filter((f) => pattern.test(f)).sort();
}

async function inTransaction<T>(db: Queryable, work: () => Promise<T>): Promise<T> {
  await db.query('BEGIN');
  try {
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (err) {
    await db.query('ROLLBACK');
    throw err;
  }
}

async function applyFunctionFiles(db: Queryable, dir: string): Promise<string[]> {
  const functions = join(dir, 'functions');
  const files = await sqlFiles(functions, /^[a-z0-9-]+\.sql$/);
  for (const file of files) {
    try {
      await db.query(await readFile(join(functions, file), 'utf8'));
    } catch (err) {
      throw new Error(`functions/${file} failed: ${(err as Error).message}`, { cause: err });
    }
  }
  return files;
}

/**
 * Every read function, applied whole in one transaction (a file that fails leaves the previous
 * definitions in place). Applying them again changes nothing.
 */
export function applyReadFunctions(db: Queryable, dir = SQL_DIR): Promise<string[]> {
  return inTransaction(db, () => applyFunctionFiles(db, dir));
}

/**
 * Applies the migrations not yet applied, in file-name order, then the read functions, then (re)grants the
 * read-only role, all in one transaction. The service reads while a deployment migrates: a migration that
 * drops or changes a function the previous read functions call would break every read between its commit
 * and the functions' one, and a function created without its grant would refuse the service. In one
 * transaction a read sees the store before the run or after it, and a run that fails anywhere leaves the
 * store as it was (its locks held until the end are the price: a read of a table it alters waits). A run that
 * waits too long for a lock gives up and starts again (LOCK_WAIT_MS). Runs as an owner role, never as the
 * service. Returns the migrations it applied.
 */
export async function migrate(db: Queryable, opts: MigrateOptions = {}): Promise<string[]> {
  const attempts = opts.attempts ?? LOCK_ATTEMPTS;
  const pause = opts.pauseMs ?? LOCK_PAUSE_MS;
  const lockWaitMs = Math.trunc(opts.lockWaitMs ?? LOCK_WAIT_MS);
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    try {
      return await migrateOnce(db, opts, lockWaitMs);
    } catch (err) {
      if (!isLockWait(err)) throw err;
      const outOfTime = opts.deadline !== undefined && Date.now() + pause + (Date.now() - started) > opts.deadline;
      if (attempt >= attempts || outOfTime)
        throw new Error(
          `migrate gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}${outOfTime ? ', out of time for another' : ''}: ` +
            `another transaction held a lock the run needs for more than ${lockWaitMs} ms each time ` +
            `(${(err as Error).message}); nothing was applied`,
          { cause: err },
        );
      await opts.onLockWait?.(attempt, err as Error);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** One attempt: the whole run in one transaction, waiting at most `lockWaitMs` for any lock. */
async function migrateOnce(db: Queryable, opts: MigrateOptions, lockWaitMs: number): Promise<string[]> {
  const dir = opts.dir ?? SQL_DIR;
  const migrations = join(dir, 'migrations');
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  return inTransaction(db, async () => {
    await db.query(`SET LOCAL lock_timeout = ${lockWaitMs}`);
    // Two runs at once (a deployment and the function invoked by hand, or two local stacks on one server)
    // take turns: the second reads what the first applied once the first has committed.
    await db.query('LOCK TABLE schema_migrations IN EXCLUSIVE MODE');
    const done = new Set((await db.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const applied: string[] = [];
    for (const file of await sqlFiles(migrations, MIGRATION_FILE)) {
      const version = file.slice(0, 3);
      if (done.has(version) || (opts.through !== undefined && version > opts.through)) continue;
      try {
        await db.query(await readFile(join(migrations, file), 'utf8'));
      } catch (err) {
        throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
      await db.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      applied.push(file);
    }
    if (opts.through === undefined) await applyFunctionFiles(db, dir);
    await db.query(await readFile(join(dir, 'grants.sql'), 'utf8'));
    return applied;
  });
}
