import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Queryable } from '#shared/store/queryable.js';
import { type LocalStore, startStore } from '../../local/stores.js';

/**
 * A store of one test file's own, for data the shared demo must not see (hostile or maximal answers): the
 * same kind of store as the run's (stack-setup.ts), so a file that needs its own data still runs on the
 * PostgreSQL server when DATABASE_URL is set. Embedded PGlite by default; on the server, a fresh database
 * beside the shared one, migrated and seeded the same way, dropped by close(). `extra` writes with the
 * owner role before the service role takes over.
 */
export async function startOwnStore(prefix: string, extra?: (db: Queryable) => Promise<void>): Promise<LocalStore> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return startStore({ seed: true, ...(extra ? { extra } : {}) });
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const onServer = async (sql: string): Promise<void> => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    const store = await startStore({ adminUrl: url.toString(), seed: true, ...(extra ? { extra } : {}) });
    return { ...store, close: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
  } catch (err) {
    await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    throw err;
  }
}
