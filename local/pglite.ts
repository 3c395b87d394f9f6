import { PGlite } from '@electric-sql/pglite';
import { type MigrateOptions, migrate } from '#shared/admin/migrate.js';
import type { Queryable } from '#shared/store/queryable.js';

export interface Store {
  pg: PGlite;
  db: Queryable;
}

/** An in-process PostgreSQL as the `pg` code queries it: multi-statement SQL without parameters needs exec. */
export function queryableOf(pg: PGlite): Queryable {
  return {
    query: <R>(text: string, params?: unknown[]) =>
      params ? pg.query<R>(text, params) : pg.exec(text).then((r) => (r[r.length - 1] ?? { rows: [] }) as { rows: R[] }),
  };
}

/**
 * A fresh, migrated in-process PostgreSQL. `opts`: what to apply (default every migration and the read
 * functions; a test of a migration stops before it).
 */
export async function freshStore(opts: MigrateOptions = {}): Promise<Store> {
  const pg = await PGlite.create();
  const db = queryableOf(pg);
  await migrate(db, opts);
  return { pg, db };
}

/** An in-process PostgreSQL started from a dump of another (PGlite's data directory as a tar). */
export async function loadedStore(data: Blob): Promise<Store> {
  const pg = await PGlite.create({ loadDataDir: data });
  return { pg, db: queryableOf(pg) };
}
