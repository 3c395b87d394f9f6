import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '#shared/admin/migrate.js';

/**
 * The PostgreSQL server of the tests that need one of their own databases (two sessions, the server's
 * tools): DATABASE_URL's when set, else the machine's on 127.0.0.1:5432; each skips, saying so, where
 * none answers (serverAnswers).
 */
export const TEST_SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** `fn` on one connection to `url`, closed whatever it does. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * One statement on the PostgreSQL server of `serverUrl` from a connection to its maintenance database
 * (CREATE and DROP DATABASE cannot run inside the database they name, nor while it is a template in use).
 */
export async function onServer(serverUrl: string, sql: string): Promise<void> {
  const url = new URL(serverUrl);
  url.pathname = '/postgres';
  await withClient(url.toString(), (client) => client.query(sql));
}

/** Whether a PostgreSQL server answers at `url` (within 2 s): tests that need one skip, saying so, where none does. */
export async function serverAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A database of a test's own on the server of `serverUrl`, named `<prefix>_<random>` (copied from
 * `template` when given): its name, its URL, and a drop that removes it whatever connections it still has.
 */
export async function scratchDatabase(
  serverUrl: string,
  prefix: string,
  template?: string,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * A migrated database of a test's own on the test server (TEST_SERVER_URL), named `<prefix>_<random>`; or
 * undefined where no server answers, after a warning that `file`'s `skipped` is skipped.
 */
export async function migratedScratchDatabase(
  prefix: string,
  file: string,
  skipped: string,
): Promise<{ name: string; url: string; drop(): Promise<void> } | undefined> {
  if (!(await serverAnswers(TEST_SERVER_URL))) {
    console.warn(`${file}: no PostgreSQL server at ${new URL(TEST_SERVER_URL).host}; ${skipped} skipped`);
    return undefined;
  }
  const db = await scratchDatabase(TEST_SERVER_URL, prefix);
  await withClient(db.url, (owner) => migrate(owner));
  return db;
}

/**
 * Returns once the session `pid` is seen waiting on a lock, as `observer` polls pg_stat_activity: a test of
 * two sessions holds the first one's commit until the second is blocked behind it.
 */
export async function untilWaitingOnLock(observer: pg.Client, pid: number | undefined): Promise<void> {
  for (;;) {
    const { rows } = await observer.query<{ waiting: boolean }>(
      `SELECT wait_event_type = 'Lock' AS waiting FROM pg_stat_activity WHERE pid = $1`,
      [pid],
    );
    if (rows[0]?.waiting) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
