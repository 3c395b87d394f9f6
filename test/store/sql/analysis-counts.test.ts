import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { seedDemo } from '#shared/admin/demo.js';
import { freshStore, type Store } from '../../../local/pglite.js';

/**
 * The per-brand analysis counts the caller statement's reach count sums (analysis_counts) are kept by the
 * store on every write to analyses, so they always equal a count of the rows themselves; and the caller
 * statement reaches exactly what the reach rule gives, on every key of the demo.
 */
let store: Store;
const W1 = 'b0000000-0000-4000-8000-000000000001';
const W2 = 'b0000000-0000-4000-8000-000000000002';
const B = (n: number) => `c0000000-0000-4000-8000-00000000000${n}`;
const A = (n: number) => `a0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const q = (sql: string) => store.db.query(sql);
async function counts(): Promise<{ kept: unknown[]; actual: unknown[] }> {
  const kept = (await q(`SELECT workspace_id, brand_id, n FROM analysis_counts WHERE n > 0 ORDER BY 1, 2`)).rows;
  const actual = (await q(`SELECT workspace_id, brand_id, count(*)::int AS n FROM analyses GROUP BY 1, 2 ORDER BY 1, 2`)).rows;
  return { kept, actual };
}

beforeAll(async () => {
  store = await freshStore();
  await q(`
    INSERT INTO plans VALUES ('p', 'P', true, 10);
    INSERT INTO workspaces (id, name, slug, plan_key) VALUES ('${W1}', 'W1', 'w1', 'p'), ('${W2}', 'W2', 'w2', 'p');
    INSERT INTO brands (id, workspace_id, name) VALUES ('${B(1)}', '${W1}', 'X'), ('${B(2)}', '${W1}', 'Y'), ('${B(3)}', '${W2}', 'Z');`);
}, 60_000);
afterAll(() => store.pg.close());

describe('analysis_counts', () => {
  test('insert (one row and many), move, delete and truncate keep it equal to a count of the rows', async () => {
    await q(
      `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, engines) VALUES ('${A(1)}', '${W1}', '${B(1)}', 'one', 'One', '{chatgpt}')`,
    );
    await q(`INSERT INTO analyses (id, workspace_id, brand_id, slug, name, engines)
             SELECT ('a0000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid, CASE WHEN n % 3 = 0 THEN '${W2}' ELSE '${W1}' END::uuid,
                    CASE WHEN n % 3 = 0 THEN '${B(3)}' WHEN n % 3 = 1 THEN '${B(1)}' ELSE '${B(2)}' END::uuid, 's' || n, 'N', '{chatgpt}'
               FROM generate_series(2, 301) n`);
    let c = await counts();
    expect(c.kept).toEqual(c.actual);
    expect(c.actual).toHaveLength(3);
    await q(`UPDATE analyses SET brand_id = '${B(2)}' WHERE brand_id = '${B(1)}' AND slug LIKE 's1%'`);
    await q(`UPDATE analyses SET name = 'renamed'`);
    c = await counts();
    expect(c.kept).toEqual(c.actual);
    await q(`DELETE FROM analyses WHERE brand_id = '${B(2)}' AND slug LIKE 's2%'`);
    c = await counts();
    expect(c.kept).toEqual(c.actual);
    // Truncated through a cascade, as the test stores wipe their data.
    await q('TRUNCATE workspaces CASCADE');
    c = await counts();
    expect(c).toEqual({ kept: [], actual: [] });
  });
});

/**
 * The reach rule of docs/contract.md#authentication, written out here as one query over the rows: a live
 * key (not revoked, not expired, its creator a member now whose access began before the key was made)
 * reaches the analyses of its workspace that its scope names and its creator's brands allow.
 */
const REACH_BY_RULE = `
  SELECT (k.revoked_at IS NULL AND k.expires_at > now() AND m.user_id IS NOT NULL AND m.left_at IS NULL
          AND m.suspended_at IS NULL AND m.joined_at <= k.created_at
          AND (m.resumed_at IS NULL OR m.resumed_at <= k.created_at)) AS alive,
         (SELECT coalesce(array_agg(a.id ORDER BY a.id), '{}') FROM analyses a
           WHERE a.workspace_id = k.workspace_id
             AND (m.brand_ids IS NULL OR a.brand_id = ANY (m.brand_ids))
             AND CASE k.scope WHEN 'workspace' THEN true WHEN 'brand' THEN a.brand_id = k.brand_id ELSE a.id = k.analysis_id END) AS reach
    FROM api_keys k LEFT JOIN members m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by
   WHERE k.fingerprint = $1`;

describe('api_caller against the reach rule on the demo: the same reach, key by key, analysis by analysis', () => {
  test('alive as the rule says; reach count = the analyses the rule gives; an analysis resolves exactly when the rule reaches it, by slug and by id in any case', async () => {
    await seedDemo(store.db);
    const keys = (await q(`SELECT fingerprint FROM api_keys`)).rows as Array<{ fingerprint: string }>;
    const analyses = (await q(`SELECT id, slug FROM analyses`)).rows as Array<{ id: string; slug: string }>;
    expect(keys.length).toBeGreaterThan(5);
    let reached = 0;
    const liveness = new Set<boolean>();
    for (const { fingerprint } of keys) {
      const rule = (await store.db.query(REACH_BY_RULE, [fingerprint])).rows[0] as { alive: boolean; reach: string[] };
      const now = (await store.db.query(`SELECT alive, reach_count FROM api_caller($1, 0, NULL, true)`, [fingerprint])).rows[0] as {
        alive: boolean;
        reach_count: number;
      };
      expect({ alive: now.alive, count: now.reach_count }).toEqual({ alive: rule.alive, count: rule.reach.length });
      liveness.add(rule.alive);
      const inReach = new Set(rule.reach);
      for (const a of analyses)
        for (const ref of [a.slug, a.id, a.id.toUpperCase()]) {
          const row = (await store.db.query(`SELECT analysis_id, analysis_slug FROM api_caller($1, 0, $2, true)`, [fingerprint, ref]))
            .rows[0] as { analysis_id: string | null; analysis_slug: string | null };
          expect({ ref, found: row.analysis_id }).toEqual({ ref, found: inReach.has(a.id) ? a.id : null });
          if (row.analysis_id) reached += 1;
        }
    }
    expect(reached).toBeGreaterThan(0);
    expect([...liveness].sort()).toEqual([false, true]);
  }, 120_000);
});
