-- The caller statement: who is calling, established in one round trip at the head of every keyed call
-- (shared/store/caller.ts), and the rule that says whether a key may be used.
--
-- Every function here is written CREATE OR REPLACE and defined nowhere else: each migrate run applies
-- this file whole, after the migrations (shared/admin/migrate.ts). Only functions live here; the tables
-- and types they read belong to the migrations. Why the reads are functions, and how to change one:
-- docs/contributing.md, "The store's SQL".

-- Whether a key may be used now, and if not, why: 'revoked', 'expired', 'creator_inactive' or 'active'.
-- A key lives as long as its creator's access lasts: its creator must be a member now (not gone, not
-- suspended) whose current, uninterrupted access began before the key was made. Access that was
-- interrupted after the key was made kills it for good (docs/contract.md#authentication point 3): a
-- re-invitation restarts joined_at, the end of a suspension sets resumed_at, and neither ever moves back
-- (the members_access_restart trigger). The caller statement below and the key listing of the admin
-- commands (shared/admin/keys.ts) both ask this function; an SQL function of one expression, it is
-- inlined into the statement that calls it.
CREATE OR REPLACE FUNCTION key_status(k api_keys, m members) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN k.revoked_at IS NOT NULL THEN 'revoked'
              WHEN k.expires_at <= now() THEN 'expired'
              WHEN m.user_id IS NULL OR m.left_at IS NOT NULL OR m.suspended_at IS NOT NULL
                   OR m.joined_at > k.created_at OR m.resumed_at > k.created_at THEN 'creator_inactive'
              ELSE 'active' END
$$;

-- How many keys of a workspace may be used now (key_status 'active'): what the limit of ten active keys
-- counts (shared/admin/keys.ts) and the workspace listing shows. A dead key (revoked, expired, or whose
-- creator lost access) takes no place.
CREATE OR REPLACE FUNCTION active_key_count(p_workspace uuid) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT count(*)::integer
    FROM api_keys k
    LEFT JOIN members m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by
   WHERE k.workspace_id = p_workspace AND key_status(k, m) = 'active'
$$;

-- The key, its plan, the creator's standing, the reach count, the analysis the call names (p_analysis,
-- NULL when it names none) if the key reaches it, and the last_used_at stamp.
--
-- Reach is the key's scope intersected with what its creator may read today: key_status above, and the
-- creator's brand restriction (members.brand_ids). Its cost does not grow with the workspace:
--   - the named analysis: a primary-key probe (a reference shaped like a uuid names an analysis by id,
--     compared lowercased; any other reference is a slug, exact, probed in the key's workspace), then the
--     reach predicate. Out of reach and nonexistent run the same statement and both answer NULL, so the
--     service cannot tell them apart either;
--   - the reach count: from analysis_counts, one row per brand of the workspace.
--
-- The stamp (at most once per p_throttle_seconds per key; 0 disables it) never decides whether the call
-- is served. stamp_due says whether it is due. With p_stamp the statement keeps it itself, only where the
-- session may write (a reader instance, a hot standby, a role or database with default_transaction_read_only
-- say no), never waiting for a row lock (SKIP LOCKED: a concurrent call or writer holding the key's row
-- keeps it), and whatever error it meets is swallowed. Without p_stamp the service keeps it elsewhere (a
-- writer connection, DB_WRITER_HOST). last_used_at is the time of this call when the stamp is due (this
-- call is a use, wherever the stamp is kept), the stored one otherwise.
CREATE OR REPLACE FUNCTION api_caller(p_fingerprint text, p_throttle_seconds integer, p_analysis text, p_stamp boolean)
RETURNS TABLE (
  id uuid, name text, prefix text, scope text, alive boolean, created_at timestamptz, expires_at timestamptz,
  last_used_at timestamptz, stamp_due boolean, brand_name text, pinned_slug text, workspace_id uuid,
  workspace_name text, workspace_slug text, plan_key text, api_access boolean, calls_per_minute integer,
  reach_count integer, analysis_id uuid, analysis_slug text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  ref_id uuid := CASE WHEN p_analysis ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                      THEN lower(p_analysis)::uuid END;
BEGIN
  WITH k AS (
    SELECT k.*, key_status(k, m) = 'active' AS alive,
           m.brand_ids AS creator_brand_ids
    FROM api_keys k
    LEFT JOIN members m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by
    WHERE k.fingerprint = p_fingerprint
  ), due AS (
    SELECT k.alive AND p_throttle_seconds > 0
           AND (k.last_used_at IS NULL OR k.last_used_at < now() - make_interval(secs => p_throttle_seconds)) AS due
    FROM k
  )
  SELECT k.id, k.name, k.prefix, k.scope, k.alive, k.created_at, k.expires_at,
         CASE WHEN d.due THEN now() ELSE COALESCE(k.last_used_at, now()) END, d.due,
         b.name, pa.slug, w.id, w.name, w.slug, p.key, p.api_access, p.calls_per_minute,
         CASE WHEN k.scope = 'analysis'
              THEN (SELECT count(*)::integer FROM analyses a
                     WHERE a.id = k.analysis_id AND a.workspace_id = k.workspace_id
                       AND (k.creator_brand_ids IS NULL OR a.brand_id = ANY (k.creator_brand_ids)))
              ELSE (SELECT COALESCE(sum(c.n), 0)::integer FROM analysis_counts c
                     WHERE c.workspace_id = k.workspace_id
                       AND (k.creator_brand_ids IS NULL OR c.brand_id = ANY (k.creator_brand_ids))
                       AND (k.scope = 'workspace' OR c.brand_id = k.brand_id))
         END,
         named.id, named.slug
    INTO id, name, prefix, scope, alive, created_at, expires_at, last_used_at, stamp_due, brand_name, pinned_slug,
         workspace_id, workspace_name, workspace_slug, plan_key, api_access, calls_per_minute, reach_count,
         analysis_id, analysis_slug
  FROM k
  CROSS JOIN due d
  JOIN workspaces w ON w.id = k.workspace_id
  JOIN plans p ON p.key = w.plan_key
  LEFT JOIN brands b ON b.id = k.brand_id
  LEFT JOIN analyses pa ON pa.id = k.analysis_id
  LEFT JOIN LATERAL (
    SELECT a.id, a.slug, a.workspace_id, a.brand_id
      FROM (SELECT a.id, a.slug, a.workspace_id, a.brand_id FROM analyses a WHERE ref_id IS NOT NULL AND a.id = ref_id
            UNION ALL
            SELECT a.id, a.slug, a.workspace_id, a.brand_id FROM analyses a
             WHERE ref_id IS NULL AND p_analysis IS NOT NULL AND a.workspace_id = k.workspace_id AND a.slug = p_analysis) a
     WHERE a.workspace_id = k.workspace_id
       AND (k.creator_brand_ids IS NULL OR a.brand_id = ANY (k.creator_brand_ids))
       AND CASE k.scope WHEN 'workspace' THEN true
                        WHEN 'brand' THEN a.brand_id = k.brand_id
                        ELSE a.id = k.analysis_id END
  ) named ON true;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF stamp_due AND p_stamp AND current_setting('transaction_read_only') = 'off' THEN
    BEGIN
      UPDATE api_keys u SET last_used_at = now()
       WHERE u.id = (SELECT x.id FROM api_keys x
                      WHERE x.id = api_caller.id
                        AND (x.last_used_at IS NULL OR x.last_used_at < now() - make_interval(secs => p_throttle_seconds))
                        FOR UPDATE SKIP LOCKED);
    EXCEPTION WHEN OTHERS THEN
      -- Whatever keeps the stamp from being written (a grant missing, the session turned read-only), the
      -- call is served: the stamp is bookkeeping, not a condition of the read.
      NULL;
    END;
  END IF;
  RETURN NEXT;
END $$;
