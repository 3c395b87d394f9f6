-- The statements of the reads, as functions (issue 13).
--
-- Sent as unnamed statements, the reads' SQL was parsed and planned on every call: planning cost 4 to 10
-- times the execution itself. Named prepared statements would keep the plans, but behind RDS Proxy they
-- pin the client to one database connection. PL/pgSQL keeps the plan of each static statement it runs,
-- per backend, with no session state: whichever backend the proxy lends serves a call from its own cache
-- after a few calls. So each read is one function call, one round trip, planned once per backend.
--
-- Every function is SECURITY INVOKER (the default): it runs with the caller's rights, so the service's role
-- stays what grants.sql makes it (SELECT, plus the last_used_at stamp of a key). Figure arithmetic
-- (rates, intervals, rounding) stays in TypeScript, next to its tests; these return counts and rows.

-- ---------------------------------------------------------------------------------------------------
-- Identity: key, plan, the creator's standing and the key's reach (shared/store/caller.ts), and the
-- throttled last_used_at stamp.

CREATE FUNCTION api_identity(p_fingerprint text, p_throttle_seconds integer)
RETURNS TABLE (
  id uuid, name text, prefix text, scope text, alive boolean, created_at timestamptz, expires_at timestamptz,
  last_used_at timestamptz, brand_name text, pinned_slug text, workspace_id uuid, workspace_name text,
  workspace_slug text, plan_key text, api_access boolean, calls_per_minute integer, reach json)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH k AS (
    SELECT k.*, (k.revoked_at IS NULL AND k.expires_at > now()
                 AND m.user_id IS NOT NULL AND m.left_at IS NULL AND m.suspended_at IS NULL
                 -- Dead for good once the creator's access was interrupted after the key was made (005).
                 AND m.joined_at <= k.created_at AND (m.resumed_at IS NULL OR m.resumed_at <= k.created_at)) AS alive,
           m.brand_ids AS creator_brand_ids
    FROM api_keys k
    LEFT JOIN members m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by
    WHERE k.fingerprint = p_fingerprint
  ), touched AS (
    UPDATE api_keys u SET last_used_at = now()
    FROM k
    WHERE u.id = k.id AND k.alive AND p_throttle_seconds > 0
      AND (u.last_used_at IS NULL OR u.last_used_at < now() - make_interval(secs => p_throttle_seconds))
    RETURNING u.last_used_at
  )
  SELECT k.id, k.name, k.prefix, k.scope, k.alive, k.created_at, k.expires_at,
         COALESCE((SELECT t.last_used_at FROM touched t), k.last_used_at, now()),
         b.name, pa.slug, w.id, w.name, w.slug, p.key, p.api_access, p.calls_per_minute,
         (SELECT COALESCE(json_agg(json_build_object('id', a.id, 'slug', a.slug) ORDER BY a.slug), '[]'::json)
            FROM analyses a
           WHERE a.workspace_id = k.workspace_id
             AND (k.creator_brand_ids IS NULL OR a.brand_id = ANY (k.creator_brand_ids))
             AND CASE k.scope WHEN 'workspace' THEN true
                              WHEN 'brand' THEN a.brand_id = k.brand_id
                              ELSE a.id = k.analysis_id END)
  FROM k
  JOIN workspaces w ON w.id = k.workspace_id
  JOIN plans p ON p.key = w.plan_key
  LEFT JOIN brands b ON b.id = k.brand_id
  LEFT JOIN analyses pa ON pa.id = k.analysis_id;
END $$;

-- ---------------------------------------------------------------------------------------------------
-- Windows of the figure reads (docs/decisions.md#decisions-the-contract-leaves-open). A window ends on the
-- UTC day of the last finished collection (the latest run whose collection ended, by start); a run belongs to
-- the UTC day it started. Nd: the N days ending on that day; custom: from/to, inclusive; all: from the first
-- collection. Comparison: last-run, the previous collection; Nd and custom, the period of equal length just
-- before; all, none.

CREATE TYPE fig_run AS (id uuid, state text, started_at timestamptz, collected_at timestamptz, finished_at timestamptz, day date);

CREATE TYPE fig_window AS (
  name text,          -- last-run, 7d, 14d, 30d, 90d, all, or custom
  anchor fig_run,     -- the last finished collection (NULL: never collected)
  before fig_run,     -- the one before it
  first_day date,     -- day of the first finished collection
  cur_kind text,      -- run, days or all; NULL when never collected under a named window
  cur_from date, cur_to date, cur_run uuid,
  prev_kind text,     -- the comparison period; NULL when there is none
  prev_from date, prev_to date, prev_run uuid);

CREATE FUNCTION fig_resolve_window(p_analysis uuid, p_name text, p_from date, p_to date) RETURNS fig_window
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window;
  last2 fig_run[];
  n integer;
BEGIN
  SELECT array_agg(x ORDER BY x.started_at DESC, x.id DESC) INTO last2
    FROM (SELECT r.id, r.state, r.started_at, r.collected_at, r.finished_at, (r.started_at AT TIME ZONE 'UTC')::date
            FROM runs r WHERE r.analysis_id = p_analysis AND r.collected_at IS NOT NULL
           ORDER BY r.started_at DESC, r.id DESC LIMIT 2) x;
  w.anchor := last2[1];
  w.before := last2[2];
  SELECT (min(r.started_at) AT TIME ZONE 'UTC')::date INTO w.first_day
    FROM runs r WHERE r.analysis_id = p_analysis AND r.collected_at IS NOT NULL;
  IF p_from IS NOT NULL THEN
    w.name := 'custom';
    n := p_to - p_from + 1;
    w.cur_kind := 'days'; w.cur_from := p_from; w.cur_to := p_to;
    w.prev_kind := 'days'; w.prev_from := p_from - n; w.prev_to := p_from - 1;
    RETURN w;
  END IF;
  w.name := p_name;
  IF (w.anchor).id IS NULL THEN
    RETURN w;
  END IF;
  IF p_name = 'last-run' THEN
    w.cur_kind := 'run'; w.cur_from := (w.anchor).day; w.cur_to := (w.anchor).day; w.cur_run := (w.anchor).id;
    IF (w.before).id IS NOT NULL THEN
      w.prev_kind := 'run'; w.prev_from := (w.before).day; w.prev_to := (w.before).day; w.prev_run := (w.before).id;
    END IF;
  ELSIF p_name = 'all' THEN
    w.cur_kind := 'all'; w.cur_from := coalesce(w.first_day, (w.anchor).day); w.cur_to := (w.anchor).day;
  ELSIF p_name IN ('7d', '14d', '30d', '90d') THEN
    n := left(p_name, -1)::integer;
    w.cur_kind := 'days'; w.cur_from := (w.anchor).day - (n - 1); w.cur_to := (w.anchor).day;
    w.prev_kind := 'days'; w.prev_from := w.cur_from - n; w.prev_to := w.cur_from - 1;
  ELSE
    RAISE EXCEPTION 'unknown window %', p_name USING ERRCODE = '22023';
  END IF;
  RETURN w;
END $$;

CREATE FUNCTION fig_month_start(d date) RETURNS date LANGUAGE sql IMMUTABLE AS $$
  SELECT make_date(extract(year FROM d)::integer, extract(month FROM d)::integer, 1)
$$;

-- The rows that make up each period (0 current, 1 comparison): a run's own rows; whole calendar months
-- from the month aggregates; the edge days around them from the per-run aggregates. So a window costs
-- O(months + edge days) rows, whatever the length of the history.
CREATE FUNCTION fig_segments(w fig_window) RETURNS TABLE (period integer, kind text, run uuid, lo date, hi date)
LANGUAGE sql IMMUTABLE AS $$
  WITH p AS (
    SELECT 0 AS period, w.cur_kind AS kind, w.cur_run AS run, w.cur_from AS f, w.cur_to AS t WHERE w.cur_kind IS NOT NULL
    UNION ALL
    SELECT 1, w.prev_kind, w.prev_run, w.prev_from, w.prev_to WHERE w.prev_kind IS NOT NULL
  ), b AS (
    SELECT p.period, p.f, p.t,
           CASE WHEN p.f = fig_month_start(p.f) THEN p.f ELSE (fig_month_start(p.f) + interval '1 month')::date END AS first_full,
           CASE WHEN p.t + 1 = (fig_month_start(p.t) + interval '1 month')::date THEN p.t ELSE fig_month_start(p.t) - 1 END AS last_full_end
      FROM p WHERE p.kind = 'days'
  )
  SELECT period, 'run', run, NULL::date, NULL::date FROM p WHERE kind = 'run'
  UNION ALL SELECT period, 'months', NULL, DATE '2000-01-01', DATE '2099-12-01' FROM p WHERE kind = 'all'
  UNION ALL SELECT period, 'days', NULL, f, t FROM b WHERE first_full > last_full_end
  UNION ALL SELECT period, 'months', NULL, first_full, fig_month_start(last_full_end) FROM b WHERE first_full <= last_full_end
  UNION ALL SELECT period, 'days', NULL, f, first_full - 1 FROM b WHERE first_full <= last_full_end AND f < first_full
  UNION ALL SELECT period, 'days', NULL, last_full_end + 1, t FROM b WHERE first_full <= last_full_end AND last_full_end < t
$$;

-- The runs of each period, as instants: [lo, hi) on started_at, and the run itself for a run period.
CREATE FUNCTION fig_run_periods(w fig_window) RETURNS TABLE (period integer, run uuid, lo timestamptz, hi timestamptz)
LANGUAGE sql IMMUTABLE AS $$
  SELECT 0, w.cur_run,
         CASE WHEN w.cur_kind = 'all' THEN '-infinity'::timestamptz ELSE w.cur_from::timestamp AT TIME ZONE 'UTC' END,
         CASE WHEN w.cur_kind = 'all' THEN 'infinity'::timestamptz ELSE (w.cur_to + 1)::timestamp AT TIME ZONE 'UTC' END
   WHERE w.cur_kind IS NOT NULL
  UNION ALL
  SELECT 1, w.prev_run, w.prev_from::timestamp AT TIME ZONE 'UTC', (w.prev_to + 1)::timestamp AT TIME ZONE 'UTC'
   WHERE w.prev_kind IS NOT NULL
$$;

-- What every figure read starts from: the analysis, the window, per-engine sums of each period, the runs
-- of the window collected but not extracted yet (read live), the measurement date and the recipes served.
CREATE FUNCTION fig_common(p_analysis uuid, w fig_window) RETURNS json LANGUAGE plpgsql STABLE AS $$
DECLARE
  cur_lo timestamptz;
  cur_hi timestamptz;
BEGIN
  SELECT p.lo, p.hi INTO cur_lo, cur_hi FROM fig_run_periods(w) p WHERE p.period = 0;
  RETURN json_build_object(
    'window', to_json(w),
    'info', (SELECT json_build_object('owned_domains', a.owned_domains, 'engines', a.engines, 'brand', b.name,
                                      'engine_names', (SELECT json_object_agg(e.key, e.name) FROM engines e))
               FROM analyses a JOIN brands b ON b.id = a.brand_id WHERE a.id = p_analysis),
    'engines', (SELECT json_agg(x) FROM (
        SELECT s.period, f.engine, sum(f.expected)::integer AS expected, sum(f.collected)::integer AS collected,
               sum(f.failed)::integer AS failed, sum(f.answers)::float8 AS answers, sum(f.extracted)::float8 AS extracted,
               sum(f.mentioned)::float8 AS mentioned, sum(f.tracked_mentions)::float8 AS tracked_mentions,
               sum(f.brand_mentions)::float8 AS brand_mentions, sum(f.position_sum)::float8 AS position_sum,
               sum(f.position_n)::float8 AS position_n, sum(f.sentiment_sum)::float8 AS sentiment_sum,
               sum(f.sentiment_n)::float8 AS sentiment_n, sum(f.citations)::float8 AS citations,
               sum(f.owned_citations)::float8 AS owned_citations
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT e.engine, e.expected, e.collected, e.failed, e.answers, e.extracted, e.mentioned, e.tracked_mentions,
                   e.brand_mentions, e.position_sum, e.position_n, e.sentiment_sum, e.sentiment_n, e.citations, e.owned_citations
              FROM fig_run_engine e WHERE s.kind = 'run' AND e.run_id = s.run
            UNION ALL
            SELECT e.engine, e.expected, e.collected, e.failed, e.answers, e.extracted, e.mentioned, e.tracked_mentions,
                   e.brand_mentions, e.position_sum, e.position_n, e.sentiment_sum, e.sentiment_n, e.citations, e.owned_citations
              FROM fig_run_engine e WHERE s.kind = 'days' AND e.analysis_id = p_analysis AND e.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT e.engine, e.expected, e.collected, e.failed, e.answers, e.extracted, e.mentioned, e.tracked_mentions,
                   e.brand_mentions, e.position_sum, e.position_n, e.sentiment_sum, e.sentiment_n, e.citations, e.owned_citations
              FROM fig_month_engine e WHERE s.kind = 'months' AND e.analysis_id = p_analysis AND e.month BETWEEN s.lo AND s.hi
          ) f
         GROUP BY s.period, f.engine) x),
    'unfinished', (SELECT json_agg(u) FROM (
        SELECT p.period, r.id, r.state, e.engine, e.expected, e.collected, e.extracted, e.failed
          FROM fig_run_periods(w) p
          JOIN runs r ON r.analysis_id = p_analysis AND r.state <> 'finished' AND r.collected_at IS NOT NULL
                     AND r.started_at >= p.lo AND r.started_at < p.hi AND (p.run IS NULL OR r.id = p.run)
          JOIN run_engines e ON e.run_id = r.id) u),
    'measured_at', (SELECT r.finished_at FROM runs r
                     WHERE r.analysis_id = p_analysis AND r.state = 'finished'
                       AND r.started_at >= cur_lo AND r.started_at < cur_hi AND (w.cur_run IS NULL OR r.id = w.cur_run)
                     ORDER BY r.started_at DESC LIMIT 1),
    'recipes', (SELECT coalesce(array_agg(DISTINCT x.recipe ORDER BY x.recipe), '{}')
                  FROM fig_segments(w) s
                  CROSS JOIN LATERAL (
                    SELECT e.recipe FROM fig_run_engine e WHERE s.kind = 'run' AND e.run_id = s.run AND e.recipe IS NOT NULL
                    UNION ALL
                    SELECT e.recipe FROM fig_run_engine e
                     WHERE s.kind = 'days' AND e.analysis_id = p_analysis AND e.day BETWEEN s.lo AND s.hi AND e.recipe IS NOT NULL
                    UNION ALL
                    SELECT m.recipe FROM fig_month_recipe m
                     WHERE s.kind = 'months' AND m.analysis_id = p_analysis AND m.month BETWEEN s.lo AND s.hi AND m.n > 0
                  ) x
                 WHERE s.period = 0));
END $$;

-- Collected answers of the window's runs still extracting (their volumes are not in the aggregates yet).
CREATE FUNCTION fig_unfinished_runs(p_analysis uuid, w fig_window) RETURNS uuid[] LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(r.id), '{}')
    FROM fig_run_periods(w) p
    JOIN runs r ON r.analysis_id = p_analysis AND r.state <> 'finished' AND r.collected_at IS NOT NULL
               AND r.started_at >= p.lo AND r.started_at < p.hi AND (p.run IS NULL OR r.id = p.run)
   WHERE p.period = 0
$$;

-- ---------------------------------------------------------------------------------------------------
-- The figure reads (4-10): one call each, returning what TypeScript turns into the response.

-- Reads 4 (metrics) and 6 (engines).
CREATE FUNCTION api_fig_metrics(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN json_build_object('common', fig_common(p_analysis, fig_resolve_window(p_analysis, p_window, p_from, p_to)));
END $$;

-- Read 7: brands named in the window, and the configured competitors.
CREATE FUNCTION api_fig_competitors(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
BEGIN
  RETURN json_build_object(
    'common', fig_common(p_analysis, w),
    'brands', (SELECT json_agg(x) FROM (
        SELECT s.period, f.brand, bool_or(f.is_tracked) AS is_tracked,
               (array_agg(f.competitor_id) FILTER (WHERE f.competitor_id IS NOT NULL))[1] AS competitor_id,
               sum(f.mentions)::float8 AS mentions, sum(f.answers)::float8 AS answers,
               sum(f.position_sum)::float8 AS position_sum, sum(f.position_n)::float8 AS position_n
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions, b.answers, b.position_sum, b.position_n
              FROM fig_run_brand b WHERE s.kind = 'run' AND b.run_id = s.run
            UNION ALL
            SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions, b.answers, b.position_sum, b.position_n
              FROM fig_run_brand b WHERE s.kind = 'days' AND b.analysis_id = p_analysis AND b.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions, b.answers, b.position_sum, b.position_n
              FROM fig_month_brand b WHERE s.kind = 'months' AND b.analysis_id = p_analysis AND b.month BETWEEN s.lo AND s.hi
          ) f
         GROUP BY s.period, f.brand) x),
    'configured', (SELECT coalesce(json_agg(json_build_object('id', c.id, 'name', c.name, 'domain', c.domain) ORDER BY c.name, c.id), '[]')
                     FROM competitors c WHERE c.analysis_id = p_analysis));
END $$;

-- Read 8: cited domains of the window.
CREATE FUNCTION api_fig_sources(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
BEGIN
  RETURN json_build_object(
    'common', fig_common(p_analysis, w),
    'domains', (SELECT json_agg(x) FROM (
        SELECT s.period, f.domain, sum(f.citations)::float8 AS citations, sum(f.answers)::float8 AS answers
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT d.domain, d.citations, d.answers FROM fig_run_domain d WHERE s.kind = 'run' AND d.run_id = s.run
            UNION ALL
            SELECT d.domain, d.citations, d.answers FROM fig_run_domain d
             WHERE s.kind = 'days' AND d.analysis_id = p_analysis AND d.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT d.domain, d.citations, d.answers FROM fig_month_domain d
             WHERE s.kind = 'months' AND d.analysis_id = p_analysis AND d.month BETWEEN s.lo AND s.hi
          ) f
         GROUP BY s.period, f.domain HAVING sum(f.citations) > 0) x));
END $$;

-- Read 9: the groups (and none) with their sums per period, and the answers of runs still extracting.
CREATE FUNCTION api_fig_groups(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
  nil CONSTANT uuid := '00000000-0000-0000-0000-000000000000';
BEGIN
  RETURN json_build_object(
    'common', fig_common(p_analysis, w),
    'rows', (SELECT json_agg(x) FROM (
        SELECT s.period, f.group_key, sum(f.answers)::float8 AS answers, sum(f.extracted)::float8 AS extracted,
               sum(f.mentioned)::float8 AS mentioned, sum(f.tracked_mentions)::float8 AS tracked_mentions,
               sum(f.brand_mentions)::float8 AS brand_mentions, sum(f.position_sum)::float8 AS position_sum,
               sum(f.position_n)::float8 AS position_n, sum(f.sentiment_sum)::float8 AS sentiment_sum,
               sum(f.sentiment_n)::float8 AS sentiment_n, sum(f.citations)::float8 AS citations,
               sum(f.owned_citations)::float8 AS owned_citations
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT g.group_key, g.answers, g.extracted, g.mentioned, g.tracked_mentions, g.brand_mentions,
                   g.position_sum, g.position_n, g.sentiment_sum, g.sentiment_n, g.citations, g.owned_citations
              FROM fig_run_group g WHERE s.kind = 'run' AND g.run_id = s.run
            UNION ALL
            SELECT g.group_key, g.answers, g.extracted, g.mentioned, g.tracked_mentions, g.brand_mentions,
                   g.position_sum, g.position_n, g.sentiment_sum, g.sentiment_n, g.citations, g.owned_citations
              FROM fig_run_group g WHERE s.kind = 'days' AND g.analysis_id = p_analysis AND g.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT g.group_key, g.answers, g.extracted, g.mentioned, g.tracked_mentions, g.brand_mentions,
                   g.position_sum, g.position_n, g.sentiment_sum, g.sentiment_n, g.citations, g.owned_citations
              FROM fig_month_group g WHERE s.kind = 'months' AND g.analysis_id = p_analysis AND g.month BETWEEN s.lo AND s.hi
          ) f
         GROUP BY s.period, f.group_key) x),
    'groups', (SELECT json_agg(x ORDER BY x.name NULLS LAST, x.id) FROM (
        SELECT g.id, g.name, (SELECT count(*)::integer FROM prompts p WHERE p.analysis_id = g.analysis_id AND p.group_id = g.id) AS prompts
          FROM prompt_groups g WHERE g.analysis_id = p_analysis
        UNION ALL
        SELECT nil, NULL, (SELECT count(*)::integer FROM prompts p WHERE p.analysis_id = p_analysis AND p.group_id IS NULL)) x),
    'pending', (SELECT json_object_agg(x.k, x.n) FROM (
        SELECT coalesce(p.group_id, nil)::text AS k, count(*)::integer AS n
          FROM answers a JOIN prompts p ON p.id = a.prompt_id
         WHERE a.run_id = ANY (fig_unfinished_runs(p_analysis, w))
         GROUP BY 1) x));
END $$;

-- Read 10: one page of the prompts of a group (or of none, p_group NULL), their sums per period and
-- engine, and the answers of runs still extracting. found is false when the group is not the analysis's.
CREATE FUNCTION api_fig_group_prompts(p_analysis uuid, p_window text, p_from date, p_to date, p_group uuid, p_none boolean,
                                      p_limit integer, p_offset integer) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window;
  ids uuid[];
BEGIN
  IF NOT p_none AND NOT EXISTS (SELECT 1 FROM prompt_groups g WHERE g.analysis_id = p_analysis AND g.id = p_group) THEN
    RETURN json_build_object('found', false);
  END IF;
  w := fig_resolve_window(p_analysis, p_window, p_from, p_to);
  SELECT array_agg(p.id ORDER BY p.created_at, p.id) INTO ids
    FROM (SELECT p.id, p.created_at FROM prompts p
           WHERE p.analysis_id = p_analysis AND (p.group_id = p_group OR (p_none AND p.group_id IS NULL))
           ORDER BY p.created_at, p.id LIMIT p_limit OFFSET p_offset) p;
  RETURN json_build_object(
    'found', true,
    'common', fig_common(p_analysis, w),
    'total', (SELECT count(*)::integer FROM prompts p
               WHERE p.analysis_id = p_analysis AND (p.group_id = p_group OR (p_none AND p.group_id IS NULL))),
    'prompts', (SELECT coalesce(json_agg(json_build_object('id', p.id, 'text', p.text, 'language', p.language) ORDER BY p.created_at, p.id), '[]')
                  FROM prompts p WHERE p.id = ANY (ids)),
    'rows', (SELECT json_agg(x) FROM (
        SELECT s.period, f.prompt_id, f.engine, sum(f.answers)::float8 AS answers, sum(f.extracted)::float8 AS extracted,
               sum(f.mentioned)::float8 AS mentioned, sum(f.tracked_mentions)::float8 AS tracked_mentions,
               sum(f.brand_mentions)::float8 AS brand_mentions, sum(f.position_sum)::float8 AS position_sum,
               sum(f.position_n)::float8 AS position_n, sum(f.sentiment_sum)::float8 AS sentiment_sum,
               sum(f.sentiment_n)::float8 AS sentiment_n, sum(f.citations)::float8 AS citations,
               sum(f.owned_citations)::float8 AS owned_citations
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT q.prompt_id, q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations
              FROM fig_run_prompt q WHERE s.kind = 'run' AND q.run_id = s.run AND q.prompt_id = ANY (ids)
            UNION ALL
            SELECT q.prompt_id, q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations
              FROM fig_run_prompt q WHERE s.kind = 'days' AND q.prompt_id = ANY (ids) AND q.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT q.prompt_id, q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations
              FROM fig_month_prompt q WHERE s.kind = 'months' AND q.prompt_id = ANY (ids) AND q.month BETWEEN s.lo AND s.hi
          ) f
         GROUP BY s.period, f.prompt_id, f.engine) x),
    'pending', (SELECT json_object_agg(x.k, x.n) FROM (
        SELECT a.prompt_id::text || '|' || a.engine AS k, count(*)::integer AS n
          FROM answers a
         WHERE a.run_id = ANY (fig_unfinished_runs(p_analysis, w)) AND a.prompt_id = ANY (ids)
         GROUP BY 1) x));
END $$;

-- Read 5: per UTC day of the window, the latest collection of the day and its sums.
CREATE FUNCTION api_fig_series(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
  lo timestamptz := w.cur_from::timestamp AT TIME ZONE 'UTC';
  hi timestamptz := (w.cur_to + 1)::timestamp AT TIME ZONE 'UTC';
BEGIN
  RETURN json_build_object(
    'common', fig_common(p_analysis, w),
    'days', (SELECT json_agg(x ORDER BY x.day) FROM (
        SELECT d.day, d.id, d.state, u.pending, s.has_rows, s.answers, s.extracted, s.mentioned, s.tracked_mentions,
               s.brand_mentions, s.position_sum, s.position_n, s.sentiment_sum, s.sentiment_n, s.citations, s.owned_citations
          FROM (SELECT DISTINCT ON (1) (r.started_at AT TIME ZONE 'UTC')::date AS day, r.id, r.state
                  FROM runs r
                 WHERE r.analysis_id = p_analysis AND r.collected_at IS NOT NULL AND r.started_at >= lo AND r.started_at < hi
                 ORDER BY 1, r.started_at DESC, r.id DESC) d
          LEFT JOIN LATERAL (
            SELECT count(*) > 0 AS has_rows, coalesce(sum(f.answers), 0)::float8 AS answers, coalesce(sum(f.extracted), 0)::float8 AS extracted,
                   coalesce(sum(f.mentioned), 0)::float8 AS mentioned, coalesce(sum(f.tracked_mentions), 0)::float8 AS tracked_mentions,
                   coalesce(sum(f.brand_mentions), 0)::float8 AS brand_mentions, coalesce(sum(f.position_sum), 0)::float8 AS position_sum,
                   coalesce(sum(f.position_n), 0)::float8 AS position_n, coalesce(sum(f.sentiment_sum), 0)::float8 AS sentiment_sum,
                   coalesce(sum(f.sentiment_n), 0)::float8 AS sentiment_n, coalesce(sum(f.citations), 0)::float8 AS citations,
                   coalesce(sum(f.owned_citations), 0)::float8 AS owned_citations
              FROM fig_run_engine f WHERE f.run_id = d.id) s ON true
          LEFT JOIN LATERAL (
            SELECT sum(e.collected)::integer AS pending FROM run_engines e WHERE e.run_id = d.id AND d.state <> 'finished') u ON true
         WHERE w.cur_kind IS NOT NULL) x));
END $$;

-- ---------------------------------------------------------------------------------------------------
-- Reads 2-3 and 11-15: the same statements as before, kept per backend.

-- Read 2: one page of the analyses of the key's reach, by slug (byte order), after the cursor's slug.
CREATE FUNCTION api_analyses(p_reach uuid[], p_after text, p_limit integer)
RETURNS TABLE (id uuid, slug text, name text, created_at timestamptz, brand_id uuid, brand_name text, last_collected_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT a.id, a.slug, a.name, a.created_at, b.id, b.name,
         (SELECT max(r.collected_at) FROM runs r WHERE r.analysis_id = a.id)
    FROM analyses a JOIN brands b ON b.id = a.brand_id
   WHERE a.id = ANY (p_reach) AND a.slug COLLATE "C" > p_after
   ORDER BY a.slug COLLATE "C"
   LIMIT p_limit;
END $$;

-- Read 3: one analysis, with its engines, competitors, counts and latest run.
CREATE FUNCTION api_analysis(p_analysis uuid)
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

-- Read 11: the prompt catalogue.
CREATE FUNCTION api_prompts(p_analysis uuid)
RETURNS TABLE (id uuid, text text, group_id uuid, group_name text, language text, created_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT p.id, p.text, p.group_id, g.name, p.language, p.created_at
    FROM prompts p LEFT JOIN prompt_groups g ON g.id = p.group_id
   WHERE p.analysis_id = p_analysis
   ORDER BY p.created_at, p.id;
END $$;

-- Per-engine progress of a run, in the order of the analysis engines.
CREATE FUNCTION api_run_engines(p_run uuid, p_engines text[]) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT json_agg(json_build_object('engine', re.engine, 'name', e.name, 'state', re.state, 'expected', re.expected,
                                    'collected', re.collected, 'extracted', re.extracted, 'failed', re.failed,
                                    'recipe', re.recipe)
                  ORDER BY array_position(p_engines, re.engine) NULLS LAST, re.engine)
    FROM run_engines re JOIN engines e ON e.key = re.engine
   WHERE re.run_id = p_run
$$;

-- Read 12: the most recent runs, and how many there are.
CREATE FUNCTION api_runs(p_analysis uuid, p_limit integer)
RETURNS TABLE (id uuid, state text, started_at timestamptz, collected_at timestamptz, finished_at timestamptz, engines json, total integer)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT r.id, r.state, r.started_at, r.collected_at, r.finished_at, api_run_engines(r.id, a.engines), count(*) OVER ()::integer
    FROM runs r JOIN analyses a ON a.id = r.analysis_id
   WHERE r.analysis_id = p_analysis
   ORDER BY r.started_at DESC, r.id DESC
   LIMIT p_limit;
END $$;

-- Read 13: one run of the analysis, or its latest (p_run NULL).
CREATE FUNCTION api_run(p_analysis uuid, p_run uuid)
RETURNS TABLE (id uuid, state text, started_at timestamptz, collected_at timestamptz, finished_at timestamptz, engines json)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT r.id, r.state, r.started_at, r.collected_at, r.finished_at, api_run_engines(r.id, a.engines)
    FROM runs r JOIN analyses a ON a.id = r.analysis_id
   WHERE r.analysis_id = p_analysis AND (p_run IS NULL OR r.id = p_run)
   ORDER BY r.started_at DESC, r.id DESC
   LIMIT 1;
END $$;

-- Read 14: one page of answers in whole UTC days [p_first, p_last] (p_first NULL: no lower bound), most
-- recent first, after the keyset position (p_at, p_id) of the previous page; and the exact total of the
-- window from the per-day counts (004), O(days) instead of O(answers).
CREATE FUNCTION api_answers(p_analysis uuid, p_first date, p_last date, p_at timestamptz, p_id uuid, p_limit integer)
RETURNS TABLE (total integer, items json)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  lo timestamptz := coalesce(p_first::timestamp AT TIME ZONE 'UTC', '-infinity');
  hi timestamptz := (p_last + 1)::timestamp AT TIME ZONE 'UTC';
BEGIN
  RETURN QUERY
  SELECT (SELECT coalesce(sum(d.answers), 0)::integer FROM answer_days d
           WHERE d.analysis_id = p_analysis AND d.day <= p_last AND d.day >= coalesce(p_first, '-infinity'::date)),
         (SELECT json_agg(json_build_object(
                   'id', p.id, 'engine', p.engine, 'prompt_id', p.prompt_id, 'run_id', p.run_id,
                   'captured_at', to_char(p.captured_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                   'at', to_char(p.captured_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
                 ORDER BY p.captured_at DESC, p.id DESC)
            FROM (SELECT x.id, x.engine, x.prompt_id, x.run_id, x.captured_at
                    FROM answers x
                   WHERE x.analysis_id = p_analysis AND x.captured_at < hi AND x.captured_at >= lo
                     AND (x.captured_at, x.id) < (coalesce(p_at, 'infinity'), coalesce(p_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                   ORDER BY x.captured_at DESC, x.id DESC
                   LIMIT p_limit) p);
END $$;

-- Read 15: one answer of the analysis, with its mentions and citations in order.
CREATE FUNCTION api_answer(p_analysis uuid, p_answer uuid)
RETURNS TABLE (id uuid, engine text, prompt_id uuid, prompt_text text, run_id uuid, captured_at timestamptz, text text,
               extraction_state text, recipe text, mentions json, citations json)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT x.id, x.engine, x.prompt_id, p.text, x.run_id, x.captured_at, x.text, x.extraction_state, x.recipe,
         (SELECT json_agg(json_build_object('position', m.position, 'brand', m.brand_name, 'is_tracked', m.is_tracked,
                                            'competitor_id', m.competitor_id, 'sentiment', m.sentiment) ORDER BY m.position)
            FROM mentions m WHERE m.answer_id = x.id),
         (SELECT json_agg(json_build_object('position', c.ordinal, 'url', c.url, 'domain', c.domain) ORDER BY c.ordinal)
            FROM citations c WHERE c.answer_id = x.id)
    FROM answers x JOIN prompts p ON p.id = x.prompt_id
   WHERE x.id = p_answer AND x.analysis_id = p_analysis;
END $$;
