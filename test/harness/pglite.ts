import { PGlite } from '@electric-sql/pglite';
import { MIGRATIONS_DIR, migrate } from '#shared/admin/migrate.js';
import type { Queryable } from '#shared/store/queryable.js';

export interface Store {
  pg: PGlite;
  db: Queryable;
}

/**
 * A fresh, migrated in-process PostgreSQL. Multi-statement SQL without parameters needs exec. `dir`: the
 * migrations to apply (default all of them; a test of a migration applies those before it first).
 */
export async function freshStore(dir = MIGRATIONS_DIR): Promise<Store> {
  const pg = await PGlite.create();
  const db: Queryable = {
    query: <R>(text: string, params?: unknown[]) =>
      params ? pg.query<R>(text, params) : pg.exec(text).then((r) => (r[r.length - 1] ?? { rows: [] }) as { rows: R[] }),
  };
  await migrate(db, dir);
  return { pg, db };
}
