import { PGlite } from '@electric-sql/pglite';
import { type MigrateOptions, migrate } from '#shared/admin/migrate.js';
import type { Queryable } from '#shared/store/queryable.js';

export interface Store {
  pg: PGlite;
  db: Queryable;
}

/**
 * A fresh, migrated in-process PostgreSQL. Multi-statement SQL without parameters needs exec. `opts`: what
 * to apply (default every migration and the read functions; a test of a migration stops before it).
 */
export async function freshStore(opts: MigrateOptions = {}): Promise<Store> {
  const pg = await PGlite.create();
  const db: Queryable = {
    query: <R>(text: string, params?: unknown[]) =>
      params ? pg.query<R>(text, params) : pg.exec(text).then((r) => (r[r.length - 1] ?? { rows: [] }) as { rows: R[] }),
  };
  await migrate(db, opts);
  return { pg, db };
}
