-- The identity family's reads (shared/reads/identity/): the analyses a key reaches, and one analysis.
-- get_me needs none: the caller statement (caller.sql) answers it.
--
-- Every function here is written CREATE OR REPLACE and defined nowhere else: each migrate run applies
-- this file whole, after the migrations (shared/admin/migrate.ts). Only functions live here; the tables
-- and types they read belong to the migrations. Why the reads are functions, and how to change one:
-- docs/contributing.md, "The store's SQL".

-- list_analyses: one page of the analyses the key reaches, by slug (byte order), after the cursor's slug.
-- The reach predicate is the caller statement's, on the key as stored; each scope reads one index range
-- from the cursor on, so a page costs its own rows whatever its position and the workspace's size (a
-- creator limited to some brands: one range per brand, at most a page each).
CREATE OR REPLACE FUNCTION api_analyses_page(p_key uuid, p_after text, p_limit integer)
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

-- get_analysis: one analysis, with its engines, competitors, counts and latest run.
CREATE OR REPLACE FUNCTION api_analysis(p_analysis uuid)
RETURNS TABLE (id uuid, slug text, name text, created_at timestamptz, brand_id uuid, brand_name text, last_collected_at timestamptz,
               language text, country text, owned_domains text[], brand_domain text, engines json, competitors json,
               prompts integer, groups integer, latest_run json)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT a.id, a.slug, a.name, a.created_at, b.id, b.name,
         (SELECT max(r.collected_at) FROM runs r WHERE r.analysis_id = a.id),
         a.language, a.country, a.owned_domains, b.domain,
         (SELECT json_agg(json_build_object('key', e.key, 'name', e.name) ORDER BY array_position(a.engines, e.key))
            FROM engines e WHERE e.key = ANY (a.engines)),
         (SELECT json_agg(json_build_object('id', c.id, 'name', c.name, 'domain', c.domain) ORDER BY c.name, c.id)
            FROM competitors c WHERE c.analysis_id = a.id),
         (SELECT count(*)::integer FROM prompts p WHERE p.analysis_id = a.id),
         (SELECT count(*)::integer FROM prompt_groups g WHERE g.analysis_id = a.id),
         (SELECT json_build_object('id', r.id, 'state', r.state, 'started_at', r.started_at,
                                   'collected_at', r.collected_at, 'finished_at', r.finished_at)
            FROM runs r WHERE r.analysis_id = a.id ORDER BY r.started_at DESC, r.id DESC LIMIT 1)
    FROM analyses a JOIN brands b ON b.id = a.brand_id
   WHERE a.id = p_analysis;
END $$;
