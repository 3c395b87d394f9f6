import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { migrate } from '#shared/admin/migrate.js';
import { freshStore, type Store } from '../../../local/pglite.js';

/**
 * Migration 029 checks the rows already stored against its bounds, with the refusals its triggers give
 * later: a store holding an analysis past 32 engines (configured and collected from together) or past 100
 * direct competitors is not migrated (the deploy stops, nothing of the run applied) until the product has
 * fixed it; then it is.
 */
const A = '00000000-0000-4000-8000-0000000000a1';
let store: Store;
const q = (sql: string, params: unknown[] = []) => store.db.query(sql, params);

/** The refusal of a migrate run (the database's, which the run's error carries as its cause), or 'applied'. */
async function migrating(): Promise<string> {
  try {
    await migrate(store.db);
    return 'applied';
  } catch (err) {
    expect((err as Error).message).toMatch(/^migration 029_reply_bounds\.sql failed: analysis [0-9a-f-]{36}: \d+ /);
    const e = (err as Error).cause as { code?: string; constraint?: string };
    return `${e.code} ${e.constraint}`;
  }
}

const applied = async () => (await q(`SELECT version FROM schema_migrations WHERE version = '029'`)).rows.length === 1;

beforeAll(async () => {
  store = await freshStore({ through: '028' });
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('p', 'P', true, 60)`);
  await q(`INSERT INTO workspaces (id, name, slug, plan_key) VALUES ('00000000-0000-4000-8000-0000000000f1', 'W', 'w', 'p')`);
  await q(
    `INSERT INTO brands (id, workspace_id, name) VALUES ('00000000-0000-4000-8000-0000000000b1', '00000000-0000-4000-8000-0000000000f1', 'Acme')`,
  );
  await q(`INSERT INTO engines (key, name) SELECT 'e' || n, 'E' || n FROM generate_series(1, 33) n`);
  // 20 configured engines, and runs that collected from 13 others: 33 together.
  await q(
    `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, engines)
     VALUES ($1, '00000000-0000-4000-8000-0000000000f1', '00000000-0000-4000-8000-0000000000b1', 'a', 'A', ARRAY(SELECT 'e' || n FROM generate_series(1, 20) n))`,
    [A],
  );
  await q(
    `INSERT INTO runs (id, analysis_id, state, started_at) SELECT ('00000000-0000-4000-8000-0000000001' || lpad(n::text, 2, '0'))::uuid, $1, 'failed', now() - n * interval '1 day' FROM generate_series(1, 13) n`,
    [A],
  );
  await q(
    `INSERT INTO run_engines (run_id, engine, state, expected, collected, extracted, failed)
     SELECT ('00000000-0000-4000-8000-0000000001' || lpad(n::text, 2, '0'))::uuid, 'e' || (20 + n), 'failed', 0, 0, 0, 0 FROM generate_series(1, 13) n`,
  );
  await q(`INSERT INTO competitors (id, analysis_id, name) SELECT gen_random_uuid(), $1, 'Rival ' || n FROM generate_series(1, 101) n`, [
    A,
  ]);
}, 120_000);
afterAll(() => store?.pg.close());

describe('migration 029 on a store already past its bounds', () => {
  test('33 engines: refused as engines_per_analysis, nothing applied', async () => {
    expect(await migrating()).toBe('23514 engines_per_analysis');
    expect(await applied()).toBe(false);
  });

  test('32 engines but 101 competitors: refused as competitors_per_analysis, nothing applied', async () => {
    await q(`DELETE FROM run_engines WHERE engine = 'e33'`);
    expect(await migrating()).toBe('23514 competitors_per_analysis');
    expect(await applied()).toBe(false);
  });

  test('within both: applied, and from then on the triggers refuse the 33rd engine', async () => {
    await q(`DELETE FROM competitors WHERE name = 'Rival 101'`);
    expect(await migrating()).toBe('applied');
    expect(await applied()).toBe(true);
    await expect(q(`UPDATE analyses SET engines = engines || 'e33'::text WHERE id = $1`, [A])).rejects.toMatchObject({
      code: '23514',
      constraint: 'engines_per_analysis',
    });
  });
});
