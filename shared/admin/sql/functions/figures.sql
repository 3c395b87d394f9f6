-- The figure reads' functions (shared/reads/figures/): get_metrics (api_fig_headline), list_engines
-- (api_fig_engines), get_metrics_timeseries (api_fig_days), list_competitors (api_fig_brands),
-- list_sources, list_groups and list_group_prompts, each one call returning what TypeScript turns into
-- the response, and the fig_* parts they share. Figure arithmetic (rates, intervals, rounding) stays in
-- TypeScript, next to its tests: these return counts and rows.
--
-- Windows (docs/decisions.md#decisions-the-contract-leaves-open). A window ends on the UTC day of the last
-- finished collection (the latest run whose collection ended, by start); a run belongs to the UTC day it
-- started. Nd: the N days ending on that day; custom: from/to, inclusive; all: from the first collection.
-- Comparison: last-run, the previous collection; Nd and custom, the period of equal length just before;
-- all, none. The fig_run and fig_window types they travel in are the migrations'.
--
-- Every function here is written CREATE OR REPLACE and defined nowhere else: each migrate run applies
-- this file whole, after the migrations (shared/admin/migrate.ts). Only functions live here; the tables
-- and types they read belong to the migrations. Why the reads are functions, and how to change one:
-- docs/contributing.md, "The store's SQL".

-- The window a figure read names, resolved against the analysis's collections.
CREATE OR REPLACE FUNCTION fig_resolve_window(p_analysis uuid, p_name text, p_from date, p_to date) RETURNS fig_window
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

CREATE OR REPLACE FUNCTION fig_month_start(d date) RETURNS date LANGUAGE sql IMMUTABLE AS $$
  SELECT make_date(extract(year FROM d)::integer, extract(month FROM d)::integer, 1)
$$;

-- The rows that make up each period (0 current, 1 comparison): a run's own rows; whole calendar months
-- from the month aggregates; the edge days around them from the per-run aggregates. So a window costs
-- O(months + edge days) rows, whatever the length of the history.
CREATE OR REPLACE FUNCTION fig_segments(w fig_window) RETURNS TABLE (period integer, kind text, run uuid, lo date, hi date)
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
CREATE OR REPLACE FUNCTION fig_run_periods(w fig_window) RETURNS TABLE (period integer, run uuid, lo timestamptz, hi timestamptz)
LANGUAGE sql IMMUTABLE AS $$
  SELECT 0, w.cur_run,
         CASE WHEN w.cur_kind = 'all' THEN '-infinity'::timestamptz ELSE w.cur_from::timestamp AT TIME ZONE 'UTC' END,
         CASE WHEN w.cur_kind = 'all' THEN 'infinity'::timestamptz ELSE (w.cur_to + 1)::timestamp AT TIME ZONE 'UTC' END
   WHERE w.cur_kind IS NOT NULL
  UNION ALL
  SELECT 1, w.prev_run, w.prev_from::timestamp AT TIME ZONE 'UTC', (w.prev_to + 1)::timestamp AT TIME ZONE 'UTC'
   WHERE w.prev_kind IS NOT NULL
$$;

-- Extraction recipes served by the extracted runs of one period (0 the window, 1 its comparison), sorted.
-- PL/pgSQL, as the reads: its plan is kept per backend (an SQL function called from PL/pgSQL is planned
-- again on every call).
CREATE OR REPLACE FUNCTION fig_recipes(p_analysis uuid, w fig_window, p_period integer) RETURNS text[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(DISTINCT x.recipe ORDER BY x.recipe), '{}')
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
   WHERE s.period = p_period);
END $$;

-- Whether the set of prompts with collected answers differs between the window and its comparison
-- period; NULL without a comparison. One digest per collected run of the two periods (runs still
-- extracting compute theirs live from their answers): when both periods hold the same digests, they hold
-- the same prompts. Otherwise the sets are compared, unnesting one set per distinct digest.
CREATE OR REPLACE FUNCTION fig_prompts_changed(p_analysis uuid, w fig_window) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE
  cur text[];
  prev text[];
BEGIN
  IF w.prev_kind IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(DISTINCT x.digest ORDER BY x.digest) FILTER (WHERE x.period = 0),
         array_agg(DISTINCT x.digest ORDER BY x.digest) FILTER (WHERE x.period = 1)
    INTO cur, prev
    FROM (SELECT p.period, coalesce(f.digest, (SELECT l.digest FROM fig_prompt_set(r.id) l)) AS digest
            FROM fig_run_periods(w) p
            JOIN runs r ON r.analysis_id = p_analysis AND r.collected_at IS NOT NULL
                       AND r.started_at >= p.lo AND r.started_at < p.hi AND (p.run IS NULL OR r.id = p.run)
            LEFT JOIN fig_run_prompts f ON f.run_id = r.id) x;
  IF cur IS NOT DISTINCT FROM prev THEN
    RETURN false;
  END IF;
  RETURN EXISTS (
    WITH k AS (
      SELECT DISTINCT ON (p.period, s.digest) p.period, s.prompts
        FROM fig_run_periods(w) p
        JOIN runs r ON r.analysis_id = p_analysis AND r.collected_at IS NOT NULL
                   AND r.started_at >= p.lo AND r.started_at < p.hi AND (p.run IS NULL OR r.id = p.run)
        LEFT JOIN fig_run_prompts f ON f.run_id = r.id
        CROSS JOIN LATERAL (
          SELECT f.digest, f.prompts WHERE f.run_id IS NOT NULL
          UNION ALL
          SELECT l.digest, l.prompts FROM fig_prompt_set(r.id) l WHERE f.run_id IS NULL
        ) s
    ), u AS (SELECT DISTINCT k.period, x.prompt FROM k CROSS JOIN LATERAL unnest(k.prompts) x (prompt))
    (SELECT prompt FROM u WHERE period = 0 EXCEPT SELECT prompt FROM u WHERE period = 1)
    UNION ALL
    (SELECT prompt FROM u WHERE period = 1 EXCEPT SELECT prompt FROM u WHERE period = 0));
END $$;

-- What differs between a window and its comparison period, for a window that has one: the recipes of
-- each period and whether their prompt sets differ (when the digests differ, fig_prompts_changed compares
-- the sets themselves). The prompt and recipe digests of a period are one covering-index entry per run
-- (fig_run_prompts); a run's row counts in the period holding its day (for a run period, the run
-- itself); a collected run without a row (collecting, extracting, or failed after its collection) counts
-- its digest read live and no recipe, as it has no per-engine rows.
CREATE OR REPLACE FUNCTION fig_comparison(p_analysis uuid, w fig_window, OUT recipes text[], OUT previous_recipes text[],
                               OUT prompts_changed boolean) LANGUAGE plpgsql STABLE AS $$
DECLARE
  cur text[];
  prev text[];
BEGIN
  WITH k AS (
    SELECT 0 AS period, f.run_id, f.digest, f.recipes_digest FROM fig_run_prompts f
     WHERE f.analysis_id = p_analysis AND f.day BETWEEN w.cur_from AND w.cur_to AND (w.cur_run IS NULL OR f.run_id = w.cur_run)
    UNION ALL
    SELECT 1, f.run_id, f.digest, f.recipes_digest FROM fig_run_prompts f
     WHERE f.analysis_id = p_analysis AND f.day BETWEEN w.prev_from AND w.prev_to AND (w.prev_run IS NULL OR f.run_id = w.prev_run)
    UNION ALL
    SELECT p.period, NULL::uuid, (SELECT l.digest FROM fig_prompt_set(r.id) l), NULL::text
      FROM fig_run_periods(w) p
      JOIN runs r ON r.analysis_id = p_analysis AND r.state <> 'finished' AND r.collected_at IS NOT NULL
                 AND r.started_at >= p.lo AND r.started_at < p.hi AND (p.run IS NULL OR r.id = p.run)
     WHERE NOT EXISTS (SELECT 1 FROM fig_run_prompts f WHERE f.run_id = r.id)
  ),
  -- Runs of one period mostly share one prompt set and one recipe set: one run stands for each distinct
  -- pair, and only its recipes are read from the table (a live run has none).
  g AS (SELECT k.period, k.digest, (array_agg(k.run_id))[1] AS run FROM k GROUP BY k.period, k.digest, k.recipes_digest)
  SELECT (SELECT coalesce(array_agg(DISTINCT x.recipe ORDER BY x.recipe), '{}')
            FROM g JOIN fig_run_prompts f ON f.run_id = g.run, unnest(f.recipes) x (recipe) WHERE g.period = 0),
         (SELECT coalesce(array_agg(DISTINCT x.recipe ORDER BY x.recipe), '{}')
            FROM g JOIN fig_run_prompts f ON f.run_id = g.run, unnest(f.recipes) x (recipe) WHERE g.period = 1),
         (SELECT array_agg(DISTINCT g.digest ORDER BY g.digest) FROM g WHERE g.period = 0),
         (SELECT array_agg(DISTINCT g.digest ORDER BY g.digest) FROM g WHERE g.period = 1)
    INTO recipes, previous_recipes, cur, prev;
  prompts_changed := CASE WHEN cur IS NOT DISTINCT FROM prev THEN false ELSE fig_prompts_changed(p_analysis, w) END;
END $$;

-- The runs of the window still extracting, whose collected answers are not in the aggregates yet.
-- PL/pgSQL like the reads that call it: an SQL function that cannot be inlined is planned again on every
-- call.
CREATE OR REPLACE FUNCTION fig_unfinished_runs(p_analysis uuid, w fig_window) RETURNS uuid[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(r.id), '{}')
            FROM fig_run_periods(w) p
            JOIN runs r ON r.analysis_id = p_analysis AND r.state <> 'finished' AND r.collected_at IS NOT NULL
                       AND r.started_at >= p.lo AND r.started_at < p.hi AND (p.run IS NULL OR r.id = p.run)
           WHERE p.period = 0);
END $$;

-- What every figure read starts from: the resolved window, the analysis, per-engine sums of each period,
-- the runs of the window collected but not extracted yet (read live), the measurement date, the recipes
-- served in each period and whether the prompts differ (shared/reads/figures/load.ts, CommonJson).
CREATE OR REPLACE FUNCTION fig_common(p_analysis uuid, w fig_window) RETURNS json LANGUAGE plpgsql STABLE AS $$
DECLARE
  cur_lo timestamptz;
  cur_hi timestamptz;
  cmp record;
  models json;
BEGIN
  SELECT p.lo, p.hi INTO cur_lo, cur_hi FROM fig_run_periods(w) p WHERE p.period = 0;
  IF w.prev_kind IS NOT NULL THEN
    cmp := fig_comparison(p_analysis, w);
    -- The models each engine answered with in each period (engines whose model is known), for the
    -- comparison's models change; read from the partial index run_engines_model alone.
    SELECT json_agg(x) INTO models FROM (
      SELECT DISTINCT p.period, e.engine, e.model
        FROM fig_run_periods(w) p
        JOIN runs r ON r.analysis_id = p_analysis AND r.collected_at IS NOT NULL
                   AND r.started_at >= p.lo AND r.started_at < p.hi AND (p.run IS NULL OR r.id = p.run)
        JOIN run_engines e ON e.run_id = r.id AND e.model IS NOT NULL) x;
  ELSE
    SELECT fig_recipes(p_analysis, w, 0) AS recipes, NULL::text[] AS previous_recipes, NULL::boolean AS prompts_changed INTO cmp;
  END IF;
  RETURN json_build_object(
    'window', to_json(w),
    'info', (SELECT json_build_object('owned_domains', a.owned_domains, 'engines', a.engines, 'brand', b.name,
                                      'engine_names', (SELECT json_object_agg(e.key, e.name) FROM engines e))
               FROM analyses a JOIN brands b ON b.id = a.brand_id WHERE a.id = p_analysis),
    'engines', (SELECT json_agg(x) FROM (
        SELECT s.period, f.engine, sum(f.expected)::integer AS expected, sum(f.collected)::integer AS collected,
               sum(f.failed)::integer AS failed, sum(f.answers) AS answers, sum(f.extracted) AS extracted,
               sum(f.mentioned) AS mentioned, sum(f.tracked_mentions) AS tracked_mentions,
               sum(f.brand_mentions) AS brand_mentions, sum(f.position_sum) AS position_sum,
               sum(f.position_n) AS position_n, sum(f.sentiment_sum) AS sentiment_sum,
               sum(f.sentiment_n) AS sentiment_n, sum(f.citations) AS citations,
               sum(f.owned_citations) AS owned_citations, sum(f.position_sq) AS position_sq, sum(f.sentiment_sq) AS sentiment_sq
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT e.engine, e.expected, e.collected, e.failed, e.answers, e.extracted, e.mentioned, e.tracked_mentions,
                   e.brand_mentions, e.position_sum, e.position_n, e.sentiment_sum, e.sentiment_n, e.citations, e.owned_citations, e.position_sq, e.sentiment_sq
              FROM fig_run_engine e WHERE s.kind = 'run' AND e.run_id = s.run
            UNION ALL
            SELECT e.engine, e.expected, e.collected, e.failed, e.answers, e.extracted, e.mentioned, e.tracked_mentions,
                   e.brand_mentions, e.position_sum, e.position_n, e.sentiment_sum, e.sentiment_n, e.citations, e.owned_citations, e.position_sq, e.sentiment_sq
              FROM fig_run_engine e WHERE s.kind = 'days' AND e.analysis_id = p_analysis AND e.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT e.engine, e.expected, e.collected, e.failed, e.answers, e.extracted, e.mentioned, e.tracked_mentions,
                   e.brand_mentions, e.position_sum, e.position_n, e.sentiment_sum, e.sentiment_n, e.citations, e.owned_citations, e.position_sq, e.sentiment_sq
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
    'recipes', cmp.recipes,
    'previous_recipes', cmp.previous_recipes,
    'prompts_changed', cmp.prompts_changed,
    'models', models);
END $$;

-- The brands each share of voice counts, per period: mentions of the direct competitors (a competitor_id
-- at extraction), how many other brands were named (discovered), and how many competitors the analysis
-- configures.
CREATE OR REPLACE FUNCTION fig_universe(p_analysis uuid, w fig_window) RETURNS json LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN json_build_object(
    'configured', (SELECT count(*)::integer FROM competitors c WHERE c.analysis_id = p_analysis),
    'periods', (SELECT json_agg(y) FROM (
        -- A brand's counts are never negative, so a brand is named in a period exactly when one of its
        -- rows there counts a mention.
        SELECT s.period,
               coalesce(sum(f.mentions) FILTER (WHERE f.competitor_id IS NOT NULL AND NOT f.is_tracked), 0)::float8 AS direct_mentions,
               count(DISTINCT f.brand) FILTER (WHERE f.competitor_id IS NULL AND NOT f.is_tracked AND f.mentions > 0)::integer AS discovered
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions
              FROM fig_run_brand b WHERE s.kind = 'run' AND b.run_id = s.run
            UNION ALL
            SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions
              FROM fig_run_brand b WHERE s.kind = 'days' AND b.analysis_id = p_analysis AND b.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions
              FROM fig_month_brand b WHERE s.kind = 'months' AND b.analysis_id = p_analysis AND b.month BETWEEN s.lo AND s.hi
          ) f
         GROUP BY s.period) y));
END $$;

-- The names the branded rule (fig_branded_rule, migration 015) looks for in an analysis's prompts: the
-- tracked brand's and the analysis's aliases of it.
CREATE OR REPLACE FUNCTION fig_brand_names(p_analysis uuid) RETURNS text[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT b.name || a.brand_aliases FROM analyses a JOIN brands b ON b.id = a.brand_id WHERE a.id = p_analysis);
END $$;

-- Names as the reads match them: each folded once (fig_fold) and written as a LIKE pattern of the folded
-- name between spaces, names that fold to nothing left out. fig_branded_rule folds every name again for
-- each prompt it tests, which cost a read more than folding the prompts themselves. A folded string holds
-- only letters, digits and single spaces, so no pattern carries a LIKE wildcard or escape of the name's own.
CREATE OR REPLACE FUNCTION fig_name_patterns(p_names text[]) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT '% ' || x.folded || ' %'), '{}')
    FROM (SELECT fig_fold(n.name) AS folded FROM unnest(p_names) n (name)) x
   WHERE x.folded <> ''
$$;

-- An analysis's names (fig_brand_names) as the reads match them (fig_name_patterns): what a read that
-- classifies prompts computes once per call.
CREATE OR REPLACE FUNCTION fig_brand_patterns(p_analysis uuid) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT fig_name_patterns(fig_brand_names(p_analysis))
$$;

-- Whether a prompt is branded: as the pipeline classified it (prompts.branded) when it did, else by the
-- rule of fig_branded_rule over the analysis's names (as fig_brand_patterns gives them, once per call by
-- the caller: the prompt's folded text between spaces holds one of them); and which of the two said so
-- (branded_source). SQL functions, inlined where used.
CREATE OR REPLACE FUNCTION fig_prompt_branded(p_branded boolean, p_text text, p_patterns text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(p_branded, ' ' || fig_fold(p_text) || ' ' LIKE ANY (p_patterns), false)
$$;

CREATE OR REPLACE FUNCTION fig_prompt_branded_source(p_branded boolean) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_branded IS NULL THEN 'rule' ELSE 'pipeline' END
$$;

-- An analysis's prompts by kind, each classified once per call: the segment functions below take both
-- lists, so a read that asks for several of them classifies the catalogue once.
CREATE OR REPLACE FUNCTION fig_prompt_kinds(p_analysis uuid, OUT branded uuid[], OUT other uuid[]) LANGUAGE plpgsql STABLE AS $$
DECLARE
  patterns text[] := fig_brand_patterns(p_analysis);
BEGIN
  SELECT coalesce(array_agg(c.id) FILTER (WHERE c.branded), '{}'), coalesce(array_agg(c.id) FILTER (WHERE NOT c.branded), '{}')
    INTO branded, other
    FROM (SELECT p.id, fig_prompt_branded(p.branded, p.text, patterns) AS branded
            FROM prompts p WHERE p.analysis_id = p_analysis) c;
END $$;

-- The sums of each period per engine and per kind of prompt (yes: the branded prompts, no: the others,
-- as fig_prompt_kinds lists them), read from the per-prompt aggregates (a run's own rows, the edge days by prompt, whole months), and the
-- collected answers of the window's runs still extracting, per engine and kind. Rows travel as arrays:
-- period, engine, branded, then the measures in the order of MEASURES (shared/reads/figures/load.ts);
-- pending rows: engine, branded, answers. Its cost grows with prompts x engines x (months + edge days),
-- which is why the reads ask for it only when the caller asks for segments.
CREATE OR REPLACE FUNCTION fig_branded_sums(p_analysis uuid, w fig_window, yes uuid[], no uuid[]) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN json_build_object(
    'rows', (SELECT json_agg(json_build_array(x.period, x.engine, x.branded, x.answers, x.extracted, x.mentioned, x.tracked_mentions,
                                              x.brand_mentions, x.position_sum, x.position_n, x.sentiment_sum, x.sentiment_n,
                                              x.citations, x.owned_citations, x.position_sq, x.sentiment_sq)) FROM (
        SELECT s.period, f.engine, k.branded, sum(f.answers) AS answers, sum(f.extracted) AS extracted,
               sum(f.mentioned) AS mentioned, sum(f.tracked_mentions) AS tracked_mentions,
               sum(f.brand_mentions) AS brand_mentions, sum(f.position_sum) AS position_sum,
               sum(f.position_n) AS position_n, sum(f.sentiment_sum) AS sentiment_sum,
               sum(f.sentiment_n) AS sentiment_n, sum(f.citations) AS citations,
               sum(f.owned_citations) AS owned_citations, sum(f.position_sq) AS position_sq, sum(f.sentiment_sq) AS sentiment_sq
          FROM fig_segments(w) s
          CROSS JOIN (VALUES (true, yes), (false, no)) k (branded, ids)
          CROSS JOIN LATERAL (
            SELECT q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations, q.position_sq, q.sentiment_sq
              FROM fig_run_prompt q WHERE s.kind = 'run' AND q.run_id = s.run AND q.prompt_id = ANY (k.ids)
            UNION ALL
            SELECT q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations, q.position_sq, q.sentiment_sq
              FROM fig_run_prompt q WHERE s.kind = 'days' AND q.prompt_id = ANY (k.ids) AND q.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations, q.position_sq, q.sentiment_sq
              FROM fig_month_prompt q WHERE s.kind = 'months' AND q.prompt_id = ANY (k.ids) AND q.month BETWEEN s.lo AND s.hi
          ) f
         GROUP BY s.period, f.engine, k.branded) x),
    'pending', (SELECT json_agg(json_build_array(x.engine, x.branded, x.n)) FROM (
        SELECT a.engine, a.prompt_id = ANY (yes) AS branded, count(*)::integer AS n
          FROM answers a
         WHERE a.run_id = ANY (fig_unfinished_runs(p_analysis, w))
         GROUP BY 1, 2) x));
END $$;

-- The sums per kind of prompt of fig_branded_sums, the prompts classified here: what the reads that need
-- no other segment function ask for.
CREATE OR REPLACE FUNCTION fig_segment_sums(p_analysis uuid, w fig_window) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT fig_branded_sums(p_analysis, w, k.branded, k.other) FROM fig_prompt_kinds(p_analysis) k
$$;

-- The brands of each kind of prompt's share of voice on the direct universe, per period: the mentions of
-- the direct competitors and how many other brands were named (as fig_universe counts them for all
-- prompts), read from the brands per prompt (fig_run_prompt_brand, migration 018). Summed over prompts
-- first, then each brand's kind taken from the brand rows of its run (or month) as fig_universe takes it,
-- so that the two kinds' mentions add up to fig_universe's; attributing each prompt's row instead cost
-- twice as much. force_custom_plan: from a session's sixth call on, PL/pgSQL may plan this statement once
-- for any window and list of prompts (a generic plan), and the generic plans of the segment statements
-- read far more rows than the plan for the window at hand (docs/performance.md); the setting holds for
-- the function's call only, so it leaves no state on the pooled connection.
CREATE OR REPLACE FUNCTION fig_branded_universe(p_analysis uuid, w fig_window, yes uuid[], no uuid[]) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  RETURN (SELECT json_agg(y) FROM (
    WITH k AS MATERIALIZED (
      SELECT unnest(yes) AS id, true AS branded UNION ALL SELECT unnest(no), false
    ),
    f AS (
      SELECT s.period, k.branded, x.run_id, x.month, x.brand, sum(x.mentions) AS mentions
        FROM fig_segments(w) s
        CROSS JOIN LATERAL (
          SELECT b.run_id, NULL::date AS month, b.prompt_id, b.brand, b.mentions
            FROM fig_run_prompt_brand b WHERE s.kind = 'run' AND b.run_id = s.run
          UNION ALL
          SELECT b.run_id, NULL::date, b.prompt_id, b.brand, b.mentions
            FROM fig_run_prompt_brand b WHERE s.kind = 'days' AND b.analysis_id = p_analysis AND b.day BETWEEN s.lo AND s.hi
          UNION ALL
          SELECT NULL::uuid, b.month, b.prompt_id, b.brand, b.mentions
            FROM fig_month_prompt_brand b WHERE s.kind = 'months' AND b.analysis_id = p_analysis AND b.month BETWEEN s.lo AND s.hi
        ) x
        JOIN k ON k.id = x.prompt_id
       GROUP BY 1, 2, 3, 4, 5
    )
    SELECT f.period, f.branded,
           coalesce(sum(f.mentions) FILTER (WHERE a.competitor_id IS NOT NULL AND NOT a.is_tracked), 0)::float8 AS direct_mentions,
           count(DISTINCT f.brand) FILTER (WHERE a.competitor_id IS NULL AND NOT a.is_tracked AND f.mentions > 0)::integer AS discovered
      FROM f
      CROSS JOIN LATERAL (
        SELECT r.is_tracked, r.competitor_id FROM fig_run_brand r WHERE f.run_id IS NOT NULL AND r.run_id = f.run_id AND r.brand = f.brand
        UNION ALL
        SELECT m.is_tracked, m.competitor_id FROM fig_month_brand m
         WHERE f.month IS NOT NULL AND m.analysis_id = p_analysis AND m.month = f.month AND m.brand = f.brand
      ) a
     GROUP BY f.period, f.branded) y);
END $$;

-- get_metrics: the common part, the brands of the share-of-voice universe, and with p_segments the sums
-- and the universe's brands per kind of prompt (the prompts classified once).
CREATE OR REPLACE FUNCTION api_fig_headline(p_analysis uuid, p_window text, p_from date, p_to date, p_segments boolean) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
  yes uuid[];
  no uuid[];
BEGIN
  IF p_segments THEN
    SELECT k.branded, k.other INTO yes, no FROM fig_prompt_kinds(p_analysis) k;
  END IF;
  RETURN json_build_object('common', fig_common(p_analysis, w), 'universe', fig_universe(p_analysis, w),
                           'segments', CASE WHEN p_segments THEN fig_branded_sums(p_analysis, w, yes, no) END,
                           'segment_universe', CASE WHEN p_segments THEN fig_branded_universe(p_analysis, w, yes, no) END);
END $$;

-- list_engines: the common part, and with p_segments the sums per kind of prompt.
CREATE OR REPLACE FUNCTION api_fig_engines(p_analysis uuid, p_window text, p_from date, p_to date, p_segments boolean) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
BEGIN
  RETURN json_build_object('common', fig_common(p_analysis, w),
                           'segments', CASE WHEN p_segments THEN fig_segment_sums(p_analysis, w) END);
END $$;

-- The brands named in each period, per brand: its kind as the extraction attributed it, mentions, answers
-- naming it, and its first positions (sum, count, squares).
CREATE OR REPLACE FUNCTION fig_brand_sums(p_analysis uuid, w fig_window) RETURNS json LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT json_agg(x) FROM (
    SELECT s.period, f.brand, bool_or(f.is_tracked) AS is_tracked,
           (array_agg(f.competitor_id) FILTER (WHERE f.competitor_id IS NOT NULL))[1] AS competitor_id,
           sum(f.mentions)::float8 AS mentions, sum(f.answers)::float8 AS answers,
           sum(f.position_sum)::float8 AS position_sum, sum(f.position_n)::float8 AS position_n, sum(f.position_sq)::float8 AS position_sq
      FROM fig_segments(w) s
      CROSS JOIN LATERAL (
        SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions, b.answers, b.position_sum, b.position_n, b.position_sq
          FROM fig_run_brand b WHERE s.kind = 'run' AND b.run_id = s.run
        UNION ALL
        SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions, b.answers, b.position_sum, b.position_n, b.position_sq
          FROM fig_run_brand b WHERE s.kind = 'days' AND b.analysis_id = p_analysis AND b.day BETWEEN s.lo AND s.hi
        UNION ALL
        SELECT b.brand, b.is_tracked, b.competitor_id, b.mentions, b.answers, b.position_sum, b.position_n, b.position_sq
          FROM fig_month_brand b WHERE s.kind = 'months' AND b.analysis_id = p_analysis AND b.month BETWEEN s.lo AND s.hi
      ) f
     GROUP BY s.period, f.brand) x);
END $$;

-- The brands named in each period per kind of prompt (yes and no as fig_prompt_kinds lists them), read
-- from the per-prompt brand aggregates (migration 018: a run's own rows, the edge days, whole months).
-- Rows travel as arrays: period, branded, brand, mentions, answers, position_sum, position_n, position_sq
-- (BRAND_SEGMENT_COLUMNS in shared/reads/figures/competitors.ts). Its cost grows with prompts x brands x
-- (months + edge days), which is why list_competitors asks for it only when the caller asks for
-- segments. force_custom_plan: as for fig_branded_universe.
CREATE OR REPLACE FUNCTION fig_branded_brands(p_analysis uuid, w fig_window, yes uuid[], no uuid[]) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  RETURN (SELECT json_agg(json_build_array(x.period, x.branded, x.brand, x.mentions, x.answers, x.position_sum, x.position_n, x.position_sq))
    FROM (
      WITH k AS MATERIALIZED (
        SELECT unnest(yes) AS id, true AS branded UNION ALL SELECT unnest(no), false
      )
      SELECT s.period, k.branded, f.brand, sum(f.mentions)::float8 AS mentions, sum(f.answers)::float8 AS answers,
             sum(f.position_sum)::float8 AS position_sum, sum(f.position_n)::float8 AS position_n, sum(f.position_sq)::float8 AS position_sq
        FROM fig_segments(w) s
        CROSS JOIN LATERAL (
          SELECT b.prompt_id, b.brand, b.mentions, b.answers, b.position_sum, b.position_n, b.position_sq
            FROM fig_run_prompt_brand b WHERE s.kind = 'run' AND b.run_id = s.run
          UNION ALL
          SELECT b.prompt_id, b.brand, b.mentions, b.answers, b.position_sum, b.position_n, b.position_sq
            FROM fig_run_prompt_brand b WHERE s.kind = 'days' AND b.analysis_id = p_analysis AND b.day BETWEEN s.lo AND s.hi
          UNION ALL
          SELECT b.prompt_id, b.brand, b.mentions, b.answers, b.position_sum, b.position_n, b.position_sq
            FROM fig_month_prompt_brand b WHERE s.kind = 'months' AND b.analysis_id = p_analysis AND b.month BETWEEN s.lo AND s.hi
        ) f
        JOIN k ON k.id = f.prompt_id
       GROUP BY s.period, k.branded, f.brand
      HAVING sum(f.mentions) > 0) x);
END $$;

-- list_competitors: brands named in the window and the configured competitors; with p_segments, the sums
-- per kind of prompt (their denominators) and the brands per kind of prompt.
CREATE OR REPLACE FUNCTION api_fig_brands(p_analysis uuid, p_window text, p_from date, p_to date, p_segments boolean) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
  yes uuid[];
  no uuid[];
BEGIN
  IF p_segments THEN
    SELECT k.branded, k.other INTO yes, no FROM fig_prompt_kinds(p_analysis) k;
  END IF;
  RETURN json_build_object(
    'common', fig_common(p_analysis, w),
    'brands', fig_brand_sums(p_analysis, w),
    'configured', (SELECT coalesce(json_agg(json_build_object('id', c.id, 'name', c.name, 'domain', c.domain) ORDER BY c.name, c.id), '[]')
                     FROM competitors c WHERE c.analysis_id = p_analysis),
    'segments', CASE WHEN p_segments THEN fig_branded_sums(p_analysis, w, yes, no) END,
    'segment_brands', CASE WHEN p_segments THEN fig_branded_brands(p_analysis, w, yes, no) END);
END $$;

-- list_sources: cited domains of the window.
CREATE OR REPLACE FUNCTION api_fig_sources(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
BEGIN
  RETURN json_build_object(
    'common', fig_common(p_analysis, w),
    'competitor_domains', (SELECT coalesce(json_agg(DISTINCT d.domain), '[]')
                             FROM competitors c CROSS JOIN LATERAL unnest(c.domain || c.domains) d (domain)
                            WHERE c.analysis_id = p_analysis AND d.domain IS NOT NULL),
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

-- list_groups: per group (the nil uuid: prompts in no group) and period, the sums; the groups with their
-- prompt counts; the collected answers of runs still extracting, per group.
CREATE OR REPLACE FUNCTION api_fig_groups(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
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
               sum(f.owned_citations)::float8 AS owned_citations, sum(f.position_sq)::float8 AS position_sq, sum(f.sentiment_sq)::float8 AS sentiment_sq
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT g.group_key, g.answers, g.extracted, g.mentioned, g.tracked_mentions, g.brand_mentions,
                   g.position_sum, g.position_n, g.sentiment_sum, g.sentiment_n, g.citations, g.owned_citations, g.position_sq, g.sentiment_sq
              FROM fig_run_group g WHERE s.kind = 'run' AND g.run_id = s.run
            UNION ALL
            SELECT g.group_key, g.answers, g.extracted, g.mentioned, g.tracked_mentions, g.brand_mentions,
                   g.position_sum, g.position_n, g.sentiment_sum, g.sentiment_n, g.citations, g.owned_citations, g.position_sq, g.sentiment_sq
              FROM fig_run_group g WHERE s.kind = 'days' AND g.analysis_id = p_analysis AND g.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT g.group_key, g.answers, g.extracted, g.mentioned, g.tracked_mentions, g.brand_mentions,
                   g.position_sum, g.position_n, g.sentiment_sum, g.sentiment_n, g.citations, g.owned_citations, g.position_sq, g.sentiment_sq
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

-- list_group_prompts: one page of the prompts of a group (or of none, p_group NULL), their sums per period
-- and engine, and the answers of runs still extracting; found is false when the group is not the
-- analysis's. Rows travel as arrays, columns in this order (PROMPT_ROW_COLUMNS in
-- shared/reads/figures/groups.ts): period, prompt_id, engine, then the measures in the order of MEASURES
-- (shared/reads/figures/load.ts).
CREATE OR REPLACE FUNCTION api_fig_group_prompts(p_analysis uuid, p_window text, p_from date, p_to date, p_group uuid, p_none boolean,
                                      p_limit integer, p_offset integer) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window;
  ids uuid[];
  patterns text[] := fig_brand_patterns(p_analysis);
BEGIN
  IF NOT p_none AND NOT EXISTS (SELECT 1 FROM prompt_groups g WHERE g.analysis_id = p_analysis AND g.id = p_group) THEN
    RETURN json_build_object('found', false);
  END IF;
  w := fig_resolve_window(p_analysis, p_window, p_from, p_to);
  -- The page is read in index order from prompts_group_order (the offset skipped on the index alone), one
  -- statement per case so that each is a plain index condition; the total is the count the store keeps.
  IF p_none THEN
    SELECT array_agg(p.id ORDER BY p.created_at, p.id) INTO ids
      FROM (SELECT p.id, p.created_at FROM prompts p WHERE p.analysis_id = p_analysis AND p.group_id IS NULL
             ORDER BY p.created_at, p.id LIMIT p_limit OFFSET p_offset) p;
  ELSE
    SELECT array_agg(p.id ORDER BY p.created_at, p.id) INTO ids
      FROM (SELECT p.id, p.created_at FROM prompts p WHERE p.analysis_id = p_analysis AND p.group_id = p_group
             ORDER BY p.created_at, p.id LIMIT p_limit OFFSET p_offset) p;
  END IF;
  RETURN json_build_object(
    'found', true,
    'common', fig_common(p_analysis, w),
    'total', coalesce((SELECT c.n FROM prompt_group_counts c
                        WHERE c.analysis_id = p_analysis
                          AND c.group_key = CASE WHEN p_none THEN '00000000-0000-0000-0000-000000000000'::uuid ELSE p_group END), 0),
    -- branded: the pipeline's, else the rule's (as api_prompt_catalog says it).
    'prompts', (SELECT coalesce(json_agg(json_build_object('id', p.id, 'text', p.text, 'language', p.language,
                                                           'branded', fig_prompt_branded(p.branded, p.text, patterns),
                                                           'branded_source', fig_prompt_branded_source(p.branded))
                                         ORDER BY p.created_at, p.id), '[]')
                  FROM prompts p WHERE p.id = ANY (ids)),
    'rows', (SELECT json_agg(json_build_array(x.period, x.prompt_id, x.engine, x.answers, x.extracted, x.mentioned, x.tracked_mentions,
                                              x.brand_mentions, x.position_sum, x.position_n, x.sentiment_sum, x.sentiment_n,
                                              x.citations, x.owned_citations, x.position_sq, x.sentiment_sq)) FROM (
        SELECT s.period, f.prompt_id, f.engine, sum(f.answers) AS answers, sum(f.extracted) AS extracted,
               sum(f.mentioned) AS mentioned, sum(f.tracked_mentions) AS tracked_mentions,
               sum(f.brand_mentions) AS brand_mentions, sum(f.position_sum) AS position_sum,
               sum(f.position_n) AS position_n, sum(f.sentiment_sum) AS sentiment_sum,
               sum(f.sentiment_n) AS sentiment_n, sum(f.citations) AS citations,
               sum(f.owned_citations) AS owned_citations, sum(f.position_sq) AS position_sq, sum(f.sentiment_sq) AS sentiment_sq
          FROM fig_segments(w) s
          CROSS JOIN LATERAL (
            SELECT q.prompt_id, q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations, q.position_sq, q.sentiment_sq
              FROM fig_run_prompt q WHERE s.kind = 'run' AND q.run_id = s.run AND q.prompt_id = ANY (ids)
            UNION ALL
            SELECT q.prompt_id, q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations, q.position_sq, q.sentiment_sq
              FROM fig_run_prompt q WHERE s.kind = 'days' AND q.prompt_id = ANY (ids) AND q.day BETWEEN s.lo AND s.hi
            UNION ALL
            SELECT q.prompt_id, q.engine, q.answers, q.extracted, q.mentioned, q.tracked_mentions, q.brand_mentions,
                   q.position_sum, q.position_n, q.sentiment_sum, q.sentiment_n, q.citations, q.owned_citations, q.position_sq, q.sentiment_sq
              FROM fig_month_prompt q WHERE s.kind = 'months' AND q.prompt_id = ANY (ids) AND q.month BETWEEN s.lo AND s.hi
          ) f
         GROUP BY s.period, f.prompt_id, f.engine) x),
    'pending', (SELECT json_object_agg(x.k, x.n) FROM (
        SELECT a.prompt_id::text || '|' || a.engine AS k, count(*)::integer AS n
          FROM answers a
         WHERE a.run_id = ANY (fig_unfinished_runs(p_analysis, w)) AND a.prompt_id = ANY (ids)
         GROUP BY 1) x));
END $$;

-- get_metrics_timeseries: per UTC day of the window, the latest collection of the day and its figures,
-- read from its run's summary row (fig_run_prompts). One array per day, columns in this order
-- (SERIES_COLUMNS in shared/reads/figures/timeseries.ts): day, id, state, pending, has_rows, then the
-- measures in the order of MEASURES (shared/reads/figures/load.ts). With p_segments, the summary's sums
-- and the universe's brands per kind of prompt, and each day's figures per kind of prompt when the window
-- covers at most p_segment_days days (the caller refuses a longer one: its work grows with the days).
CREATE OR REPLACE FUNCTION api_fig_days(p_analysis uuid, p_window text, p_from date, p_to date, p_segments boolean,
                                        p_segment_days integer) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN fig_series(p_analysis, fig_resolve_window(p_analysis, p_window, p_from, p_to), p_segments, p_segment_days);
END $$;

-- The run each day of the series shows: per UTC day of the window, its latest collection (by start).
CREATE OR REPLACE FUNCTION fig_series_runs(p_analysis uuid, w fig_window) RETURNS TABLE (day date, id uuid, state text)
LANGUAGE sql STABLE AS $$
  SELECT DISTINCT ON (1) (r.started_at AT TIME ZONE 'UTC')::date, r.id, r.state
    FROM runs r
   WHERE r.analysis_id = p_analysis AND r.collected_at IS NOT NULL
     AND r.started_at >= w.cur_from::timestamp AT TIME ZONE 'UTC' AND r.started_at < (w.cur_to + 1)::timestamp AT TIME ZONE 'UTC'
     AND w.cur_kind IS NOT NULL
   ORDER BY 1, r.started_at DESC, r.id DESC
$$;

-- The figures of each day's run (fig_series_runs) per kind of prompt (yes: the branded prompts, as
-- fig_prompt_kinds lists them): a run's per-prompt aggregates summed by kind, and for a run without them
-- (collected, not extracted) its collected answers by kind. Rows travel as arrays: run, branded, then the
-- measures in the order of MEASURES. Its cost grows with the days x prompts x engines of the window, which
-- is why the series asks for it only with segments and bounds the days it covers then
-- (MAX_SEGMENT_SERIES_DAYS in shared/reads/figures/timeseries.ts). force_custom_plan: as for
-- fig_branded_universe.
CREATE OR REPLACE FUNCTION fig_branded_days(p_analysis uuid, w fig_window, yes uuid[]) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_custom_plan AS $$
BEGIN
  RETURN (SELECT json_agg(json_build_array(x.id, x.branded, x.answers, x.extracted, x.mentioned, x.tracked_mentions,
                                           x.brand_mentions, x.position_sum, x.position_n, x.sentiment_sum, x.sentiment_n,
                                           x.citations, x.owned_citations, x.position_sq, x.sentiment_sq)) FROM (
      WITH d AS MATERIALIZED (SELECT r.id, r.state FROM fig_series_runs(p_analysis, w) r)
      SELECT q.run_id AS id, q.prompt_id = ANY (yes) AS branded, sum(q.answers) AS answers, sum(q.extracted) AS extracted,
             sum(q.mentioned) AS mentioned, sum(q.tracked_mentions) AS tracked_mentions,
             sum(q.brand_mentions) AS brand_mentions, sum(q.position_sum) AS position_sum,
             sum(q.position_n) AS position_n, sum(q.sentiment_sum) AS sentiment_sum,
             sum(q.sentiment_n) AS sentiment_n, sum(q.citations) AS citations,
             sum(q.owned_citations) AS owned_citations, sum(q.position_sq) AS position_sq, sum(q.sentiment_sq) AS sentiment_sq
        FROM d
        JOIN fig_run_prompt q ON q.run_id = d.id
       GROUP BY 1, 2
      UNION ALL
      SELECT a.run_id, a.prompt_id = ANY (yes), count(*), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        FROM d
        JOIN answers a ON a.run_id = d.id
       WHERE d.state <> 'finished' AND NOT EXISTS (SELECT 1 FROM fig_run_prompt q WHERE q.run_id = d.id)
       GROUP BY 1, 2) x);
END $$;

CREATE OR REPLACE FUNCTION fig_series(p_analysis uuid, w fig_window, p_segments boolean, p_segment_days integer) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  yes uuid[];
  no uuid[];
BEGIN
  IF p_segments THEN
    SELECT k.branded, k.other INTO yes, no FROM fig_prompt_kinds(p_analysis) k;
  END IF;
  RETURN json_build_object(
    'common', fig_common(p_analysis, w),
    'universe', fig_universe(p_analysis, w),
    'segments', CASE WHEN p_segments THEN fig_branded_sums(p_analysis, w, yes, no) END,
    'segment_universe', CASE WHEN p_segments THEN fig_branded_universe(p_analysis, w, yes, no) END,
    'day_segments', CASE WHEN p_segments AND w.cur_to - w.cur_from < p_segment_days THEN fig_branded_days(p_analysis, w, yes) END,
    'days', (SELECT json_agg(json_build_array(x.day, x.id, x.state, x.pending, x.has_rows, x.answers, x.extracted, x.mentioned,
                                              x.tracked_mentions, x.brand_mentions, x.position_sum, x.position_n, x.sentiment_sum,
                                              x.sentiment_n, x.citations, x.owned_citations, x.position_sq, x.sentiment_sq) ORDER BY x.day) FROM (
        SELECT d.day, d.id, d.state, u.pending, coalesce(s.engine_rows, 0) > 0 AS has_rows,
               coalesce(s.answers, 0) AS answers,
               coalesce(s.extracted, 0) AS extracted,
               coalesce(s.mentioned, 0) AS mentioned,
               coalesce(s.tracked_mentions, 0) AS tracked_mentions,
               coalesce(s.brand_mentions, 0) AS brand_mentions,
               coalesce(s.position_sum, 0) AS position_sum,
               coalesce(s.position_n, 0) AS position_n,
               coalesce(s.sentiment_sum, 0) AS sentiment_sum,
               coalesce(s.sentiment_n, 0) AS sentiment_n,
               coalesce(s.citations, 0) AS citations,
               coalesce(s.owned_citations, 0) AS owned_citations,
               coalesce(s.position_sq, 0) AS position_sq,
               coalesce(s.sentiment_sq, 0) AS sentiment_sq
          FROM fig_series_runs(p_analysis, w) d
          LEFT JOIN fig_run_prompts s ON s.run_id = d.id
          LEFT JOIN LATERAL (
            SELECT sum(e.collected)::integer AS pending FROM run_engines e WHERE e.run_id = d.id AND d.state <> 'finished') u ON true) x));
END $$;
