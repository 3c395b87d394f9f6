import * as z from 'zod';
import type { Db } from './store/db.js';
import { StoreError, storeFaultCause } from './store/faults.js';
import { ApiError, KeyRevoked, PlanRequired, RateLimitUnavailable, Unauthorized } from './errors.js';
import type { Identity } from './reads/types.js';

/**
 * Key, workspace, plan, creator's standing and the key's reach, in one round trip.
 * Reach = key scope ∩ what the creator may read today (membership, suspension, brand restrictions).
 * The CTE also stamps last_used_at, at most once per throttle period (the role may update that column only).
 */
const IDENTITY_SQL = `
WITH k AS (
  SELECT k.*, (k.revoked_at IS NULL AND k.expires_at > now()
               AND m.user_id IS NOT NULL AND m.left_at IS NULL AND m.suspended_at IS NULL) AS alive,
         m.brand_ids AS creator_brand_ids
  FROM api_keys k
  LEFT JOIN members m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by
  WHERE k.fingerprint = $1
), touched AS (
  UPDATE api_keys u SET last_used_at = now()
  FROM k
  WHERE u.id = k.id AND k.alive AND $2::int > 0
    AND (u.last_used_at IS NULL OR u.last_used_at < now() - make_interval(secs => $2::int))
  RETURNING u.last_used_at
)
SELECT k.id, k.name, k.prefix, k.scope, k.alive, k.created_at, k.expires_at,
       COALESCE((SELECT last_used_at FROM touched), k.last_used_at, now()) AS last_used_at,
       b.name AS brand_name, pa.slug AS pinned_slug,
       w.id AS workspace_id, w.name AS workspace_name, w.slug AS workspace_slug,
       p.key AS plan_key, p.api_access, p.calls_per_minute,
       (SELECT COALESCE(json_agg(json_build_object('id', a.id, 'slug', a.slug) ORDER BY a.slug), '[]'::json)
          FROM analyses a
         WHERE a.workspace_id = k.workspace_id
           AND (k.creator_brand_ids IS NULL OR a.brand_id = ANY (k.creator_brand_ids))
           AND CASE k.scope WHEN 'workspace' THEN true
                            WHEN 'brand' THEN a.brand_id = k.brand_id
                            ELSE a.id = k.analysis_id END) AS reach
FROM k
JOIN workspaces w ON w.id = k.workspace_id
JOIN plans p ON p.key = w.plan_key
LEFT JOIN brands b ON b.id = k.brand_id
LEFT JOIN analyses pa ON pa.id = k.analysis_id`;

const reachSchema = z.array(z.object({ id: z.string(), slug: z.string() }));

interface IdentityRow {
  id: string;
  name: string;
  prefix: string;
  scope: Identity['key']['scope'];
  alive: boolean;
  created_at: Date;
  expires_at: Date;
  last_used_at: Date;
  brand_name: string | null;
  pinned_slug: string | null;
  workspace_id: string;
  workspace_name: string;
  workspace_slug: string;
  plan_key: string;
  api_access: boolean;
  calls_per_minute: number;
  reach: unknown;
}

export interface IdentityOptions {
  lastUsedThrottleSeconds: number;
  planCeilings?: Record<string, number> | undefined;
}

/**
 * Resolves a fingerprint to a live identity or throws the SPEC §5 refusal. Unknown and dead keys cost
 * the same single statement. A store that cannot serve surfaces as upstream_timeout and a configuration
 * fault as internal_error (both from Db); a statement the answering store failed means reach could not
 * be established: rate_limit_unavailable (SPEC §7), refused, never served. The cause goes to the log.
 */
export async function lookupIdentity(db: Db, fp: string, opts: IdentityOptions): Promise<Identity> {
  let rows: IdentityRow[];
  try {
    rows = await db.query<IdentityRow>(IDENTITY_SQL, [fp, opts.lastUsedThrottleSeconds]);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new RateLimitUnavailable(err instanceof StoreError ? err.cause : storeFaultCause(err, 'query'));
  }
  const row = rows[0];
  if (!row) throw new Unauthorized();
  if (!row.alive) throw new KeyRevoked();
  if (!row.api_access) throw new PlanRequired();
  const reach = reachSchema.safeParse(row.reach);
  if (!reach.success) throw new RateLimitUnavailable({ fault: 'statement', phase: 'query', message: 'the reach column is not a list of {id, slug}' });
  return {
    key: {
      id: row.id,
      name: row.name,
      prefix: row.prefix,
      scope: row.scope,
      brand: row.brand_name,
      pinnedAnalysis: row.pinned_slug,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
    },
    workspace: { id: row.workspace_id, name: row.workspace_name, slug: row.workspace_slug },
    plan: { key: row.plan_key, perMinute: opts.planCeilings?.[row.plan_key] ?? row.calls_per_minute },
    reach: reach.data,
  };
}
