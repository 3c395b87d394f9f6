-- Identity and reach at a cost that does not grow with the workspace (issue 23), and a last_used_at
-- stamp that never decides whether a read is served (issue 19).
--
-- api_identity (006) built the key's whole list of reachable analyses on every call and shipped it to the
-- function: a workspace of 10,000 analyses made every call several times dearer. A call needs far less:
-- whether the one analysis its path (or tool argument) names is in reach, and, for /me and /analyses, how
-- many analyses the key reaches. api_caller answers exactly that, in one round trip:
--   - the named analysis: a primary-key probe (a reference shaped like a uuid names an analysis by id,
--     compared lowercased; any other reference is a slug, exact, probed in the key's workspace), then the
--     same reach predicate as before. Out of reach and nonexistent run the same statement and both answer
--     NULL, so the service cannot tell them apart either;
--   - the reach count: from analysis_counts below, one row per brand of the workspace, so it costs what the
--     workspace's brands cost, not its analyses;
--   - whether the key's last_used_at stamp is due, and the stamp itself only where the session may write.
-- /analyses pages with api_analyses_page: keyset on the slug, the reach predicate in SQL, one index range
-- per page whatever the page's position and the workspace's size.
--
-- Reach is unchanged: key scope ∩ what the creator may read today (membership and suspension make the key
-- dead; the creator's brand restriction, members.brand_ids, narrows it).
--
-- api_identity and api_analyses (006) stay as they were, for the functions still running the previous
-- release while a deployment rolls out; nothing in this release calls them.

-- ---------------------------------------------------------------------------------------------------
-- 1. How many analyses each brand of each workspace holds, kept by the store itself on every write to
--    analyses (insert, delete, a change of workspace or brand, truncate), in the writer's transaction, so
--    the count is always the one a scan would give. The service reads it; only these triggers write it
--    (SECURITY DEFINER: the product's and the pipeline's roles need no grant on it).

CREATE TABLE analysis_counts (
  workspace_id  uuid NOT NULL,
  brand_id      uuid NOT NULL,
  n             integer NOT NULL CHECK (n >= 0),
  PRIMARY KEY (workspace_id, brand_id)
);

-- No analysis is written while the counts are taken and the triggers put in place.
LOCK TABLE analyses IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO analysis_counts (workspace_id, brand_id, n)
SELECT workspace_id, brand_id, count(*)::integer FROM analyses GROUP BY workspace_id, brand_id;

CREATE FUNCTION analysis_counts_add() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO analysis_counts AS c (workspace_id, brand_id, n)
  SELECT a.workspace_id, a.brand_id, count(*)::integer FROM added a GROUP BY a.workspace_id, a.brand_id
  ON CONFLICT (workspace_id, brand_id) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION analysis_counts_remove() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE analysis_counts c SET n = c.n - r.n
    FROM (SELECT a.workspace_id, a.brand_id, count(*)::integer AS n FROM removed a GROUP BY a.workspace_id, a.brand_id) r
   WHERE c.workspace_id = r.workspace_id AND c.brand_id = r.brand_id;
  RETURN NULL;
END $$;

CREATE FUNCTION analysis_counts_move() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE analysis_counts c SET n = c.n - r.n
    FROM (SELECT a.workspace_id, a.brand_id, count(*)::integer AS n FROM removed a GROUP BY a.workspace_id, a.brand_id) r
   WHERE c.workspace_id = r.workspace_id AND c.brand_id = r.brand_id;
  INSERT INTO analysis_counts AS c (workspace_id, brand_id, n)
  SELECT a.workspace_id, a.brand_id, count(*)::integer FROM added a GROUP BY a.workspace_id, a.brand_id
  ON CONFLICT (workspace_id, brand_id) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION analysis_counts_clear() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  DELETE FROM analysis_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER analyses_counted_insert AFTER INSERT ON analyses
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION analysis_counts_add();
CREATE TRIGGER analyses_counted_delete AFTER DELETE ON analyses
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION analysis_counts_remove();
CREATE TRIGGER analyses_counted_update AFTER UPDATE ON analyses
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION analysis_counts_move();
CREATE TRIGGER analyses_counted_truncate AFTER TRUNCATE ON analyses
  FOR EACH STATEMENT EXECUTE FUNCTION analysis_counts_clear();

-- /analyses pages by slug in byte order, within a workspace or within one brand.
CREATE INDEX analyses_workspace_slug_c ON analyses (workspace_id, slug COLLATE "C");
CREATE INDEX analyses_brand_slug_c ON analyses (brand_id, slug COLLATE "C");

-- ---------------------------------------------------------------------------------------------------
-- 2. Identity: the key, its plan, the creator's standing, the reach count, the analysis the call names
--    (p_analysis, NULL when it names none) if the key reaches it, and the last_used_at stamp.
--
-- The stamp (at most once per p_throttle_seconds per key; 0 disables it) never decides whether the call
-- is served. stamp_due says whether it is due. With p_stamp the statement keeps it itself, only where the
-- session may write (a reader instance, a hot standby, a role or database with default_transaction_read_only
-- say no), never waiting for a row lock (SKIP LOCKED: a concurrent call or writer holding the key's row
-- keeps it), and whatever error it meets is swallowed. Without p_stamp the service keeps it elsewhere (a
-- writer connection, DB_WRITER_HOST). last_used_at is the time of this call when the stamp is due (this
-- call is a use, wherever the stamp is kept), the stored one otherwise.

CREATE FUNCTION api_caller(p_fingerprint text, p_throttle_seconds integer, p_analysis text, p_stamp boolean)
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
    SELECT k.*, (k.revoked_at IS NULL AND k.expires_at > now()
                 AND m.user_id IS NOT NULL AND m.left_at IS NULL AND m.suspended_at IS NULL
                 -- Dead for good once the creator's access was interrupted after the key was made (005).
                 AND m.joined_at <= k.created_at AND (m.resumed_at IS NULL OR m.resumed_at <= k.created_at)) AS alive,
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

-- ---------------------------------------------------------------------------------------------------
-- 3. Read 2: one page of the analyses the key reaches, by slug (byte order), after the cursor's slug. The
--    reach predicate is the one api_caller applies, on the key as stored; each scope reads one index
--    range from the cursor on, so a page costs its own rows whatever its position and the workspace's size
--    (a creator limited to some brands: one range per brand, at most a page each).

CREATE FUNCTION api_analyses_page(p_key uuid, p_after text, p_limit integer)
RETURNS TABLE (id uuid, slug text, name text, created_at timestamptz, brand_id uuid, brand_name text, last_collected_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  k record;
BEGIN
  SELECT x.workspace_id, x.scope, x.brand_id, x.analysis_id, m.brand_ids AS creator_brand_ids INTO k
    FROM api_keys x
    LEFT JOIN members m ON m.workspace_id = x.workspace_id AND m.user_id = x.created_by
   WHERE x.id = p_key;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF k.scope = 'analysis' THEN
    RETURN QUERY
    SELECT a.id, a.slug, a.name, a.created_at, b.id, b.name, (SELECT max(r.collected_at) FROM runs r WHERE r.analysis_id = a.id)
      FROM analyses a JOIN brands b ON b.id = a.brand_id
     WHERE a.id = k.analysis_id AND a.workspace_id = k.workspace_id
       AND (k.creator_brand_ids IS NULL OR a.brand_id = ANY (k.creator_brand_ids))
       AND a.slug COLLATE "C" > p_after
     LIMIT p_limit;
  ELSIF k.scope = 'brand' THEN
    RETURN QUERY
    SELECT a.id, a.slug, a.name, a.created_at, b.id, b.name, (SELECT max(r.collected_at) FROM runs r WHERE r.analysis_id = a.id)
      FROM analyses a JOIN brands b ON b.id = a.brand_id
     WHERE a.brand_id = k.brand_id AND a.workspace_id = k.workspace_id
       AND (k.creator_brand_ids IS NULL OR k.brand_id = ANY (k.creator_brand_ids))
       AND a.slug COLLATE "C" > p_after
     ORDER BY a.slug COLLATE "C"
     LIMIT p_limit;
  ELSIF k.creator_brand_ids IS NULL THEN
    RETURN QUERY
    SELECT a.id, a.slug, a.name, a.created_at, b.id, b.name, (SELECT max(r.collected_at) FROM runs r WHERE r.analysis_id = a.id)
      FROM analyses a JOIN brands b ON b.id = a.brand_id
     WHERE a.workspace_id = k.workspace_id AND a.slug COLLATE "C" > p_after
     ORDER BY a.slug COLLATE "C"
     LIMIT p_limit;
  ELSE
    RETURN QUERY
    SELECT a.id, a.slug, a.name, a.created_at, b.id, b.name, (SELECT max(r.collected_at) FROM runs r WHERE r.analysis_id = a.id)
      FROM (SELECT DISTINCT u.brand_id FROM unnest(k.creator_brand_ids) u(brand_id)) cb
      CROSS JOIN LATERAL (
        SELECT a.* FROM analyses a
         WHERE a.brand_id = cb.brand_id AND a.workspace_id = k.workspace_id AND a.slug COLLATE "C" > p_after
         ORDER BY a.slug COLLATE "C"
         LIMIT p_limit) a
      JOIN brands b ON b.id = a.brand_id
     ORDER BY a.slug COLLATE "C"
     LIMIT p_limit;
  END IF;
END $$;
