import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { migrate } from '#shared/admin/migrate.js';
import type { Queryable } from '#shared/store/queryable.js';
import { READER_ROLE, withUser } from '../../local/stores.js';

/**
 * A migrated, empty measurement store that a test writes again and again as the pipeline would, while an
 * API reads it as the service's read-only role. The same kind of store as the run's: embedded PGlite by
 * default, a fresh database on the PostgreSQL server of DATABASE_URL when set (dropped by close()).
 *
 * PGlite is one backend shared by every connection: between writes it acts as the read-only role, so the
 * API's connections are denied writes by the database; `write` takes the owner role back for its duration.
 * Only call `write` while no request is in flight.
 */
export interface WritableStore {
  readerUrl: string;
  kind: 'embedded' | 'server';
  write<T>(fn: (db: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startWritableStore(prefix: string): Promise<WritableStore> {
  const serverUrl = process.env.DATABASE_URL;
  return serverUrl ? onServer(prefix, serverUrl) : embedded();
}

async function embedded(): Promise<WritableStore> {
  const lite = await PGlite.create();
  const db: Queryable = {
    query: async <R>(text: string, params?: unknown[]) =>
      (params ? lite.query<R>(text, params) : lite.exec(text).then((r) => r[r.length - 1] ?? { rows: [] })) as Promise<{ rows: R[] }>,
  };
  await migrate(db);
  await lite.exec(`SET ROLE ${READER_ROLE}`);
  const server = new PGLiteSocketServer({ db: lite, host: '127.0.0.1', port: 0, maxConnections: 64 });
  await server.start();
  return {
    readerUrl: `postgres://${READER_ROLE}@${server.getServerConn()}/postgres?sslmode=disable`,
    kind: 'embedded',
    write: async (fn) => {
      await lite.exec('RESET ROLE');
      try {
        return await fn(db);
      } finally {
        await lite.exec(`SET ROLE ${READER_ROLE}`);
      }
    },
    close: async () => {
      await server.stop();
      await lite.close();
    },
  };
}

async function onServer(prefix: string, serverUrl: string): Promise<WritableStore> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const owner = new pg.Client({ connectionString: url.toString() });
  const drop = async () => {
    await owner.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  try {
    await owner.connect();
    await migrate(owner);
  } catch (err) {
    await drop();
    throw err;
  }
  return {
    readerUrl: withUser(url.toString(), READER_ROLE),
    kind: 'server',
    write: (fn) => fn(owner),
    close: drop,
  };
}
