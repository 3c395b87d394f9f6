import { fingerprint, visiblePrefix } from '../../shared/keys.js';
import type { Queryable } from '../../shared/store/queryable.js';

export interface FixtureWorkspace {
  ids: { workspace: string; user: string; brand: string; analysis: string; key: string };
  plan: { key: string; label: string; callsPerMinute: number };
  workspace: { name: string; slug: string };
  owner: { email: string; name: string };
  brand: { name: string; domain: string };
  analysis: { slug: string; name: string };
  /** The workspace key's secret and name. */
  secret: string;
  keyName: string;
}

/**
 * A workspace of its own for a small fixture: a plan with the API, one owner since 2025-01-01, one brand,
 * one analysis on chatgpt owning the brand's domain, and a workspace key of the owner's. The fixture
 * adds its runs and answers.
 */
export async function seedFixtureWorkspace(db: Queryable, f: FixtureWorkspace): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => db.query(sql, params);
  const since = '2025-01-01T00:00:00Z';
  await q(`INSERT INTO plans (key, label, api_access, calls_per_minute) VALUES ($1, $2, true, $3)`, [f.plan.key, f.plan.label, f.plan.callsPerMinute]);
  await q(`INSERT INTO workspaces (id, name, slug, plan_key, created_at) VALUES ($1, $2, $3, $4, $5)`, [f.ids.workspace, f.workspace.name, f.workspace.slug, f.plan.key, since]);
  await q(`INSERT INTO users (id, email, name) VALUES ($1, $2, $3)`, [f.ids.user, f.owner.email, f.owner.name]);
  await q(`INSERT INTO members (workspace_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', $3)`, [f.ids.workspace, f.ids.user, since]);
  await q(`INSERT INTO brands (id, workspace_id, name, domain) VALUES ($1, $2, $3, $4)`, [f.ids.brand, f.ids.workspace, f.brand.name, f.brand.domain]);
  await q(
    `INSERT INTO analyses (id, workspace_id, brand_id, slug, name, owned_domains, engines, created_at)
     VALUES ($1, $2, $3, $4, $5, ARRAY[$6], '{chatgpt}', $7)`,
    [f.ids.analysis, f.ids.workspace, f.ids.brand, f.analysis.slug, f.analysis.name, f.brand.domain, since],
  );
  await q(
    `INSERT INTO api_keys (id, workspace_id, name, prefix, fingerprint, scope, created_by, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'workspace', $6, $7, '2099-01-01T00:00:00Z')`,
    [f.ids.key, f.ids.workspace, f.keyName, visiblePrefix(f.secret), fingerprint(f.secret), f.ids.user, since],
  );
}
