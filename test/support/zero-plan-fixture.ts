import { fingerprint, visiblePrefix } from '../../shared/keys.js';
import type { Queryable } from '../../shared/store/queryable.js';

/**
 * A workspace whose plan, in the plans table itself, includes the API with a ceiling of 0 calls a minute
 * (no PLAN_CEILINGS override): one owner, one analysis, one workspace key.
 */
export const ZERO_PLAN_SECRET = 'geo_live_ZeroPlanFixtureKey000000000000000000000';
export const ZERO_PLAN_ANALYSIS = 'zero-plan';

const u = (kind: number, n: number) => `d${kind.toString(16).padStart(7, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export async function seedZeroPlanFixture(db: Queryable): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  const [workspace, user, brand, analysis] = [u(1, 1), u(2, 1), u(3, 1), u(4, 1)];
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ('zero_calls', 'API, no calls', true, 0)`);
  await q(`INSERT INTO workspaces (id, name, slug, plan_key, created_at) VALUES ($1, 'Zero plan', 'zero-plan-fixture', 'zero_calls', '2025-01-01T00:00:00Z')`, [workspace]);
  await q(`INSERT INTO users (id, email, name) VALUES ($1, 'owner@zero.test', 'Zero owner')`, [user]);
  await q(`INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', '2025-01-01T00:00:00Z')`, [workspace, user]);
  await q(`INSERT INTO brands (id, workspace_id, name, domain) VALUES ($1, $2, 'Zed', 'zed.example')`, [brand, workspace]);
  await q(
    `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at)
     VALUES ($1, $2, $3, $4, 'Zed: never collected', '{zed.example}', '{chatgpt}', '2025-01-01T00:00:00Z')`,
    [analysis, workspace, brand, ZERO_PLAN_ANALYSIS],
  );
  await q(
    `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, created_by, created_at, expires_at)
     VALUES ($1, $2, 'Zero plan', $3, $4, 'workspace', $5, '2025-01-01T00:00:00Z', '2099-01-01T00:00:00Z')`,
    [u(10, 1), workspace, visiblePrefix(ZERO_PLAN_SECRET), fingerprint(ZERO_PLAN_SECRET), user],
  );
}
