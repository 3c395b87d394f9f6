-- The cost of figures v2: its reads back within 10% of what they cost before it (docs/performance.md).
-- Same answers, fewer rows touched, fewer bytes built, fewer plans made:
--
-- 1. One summary row per extracted run. fig_run_prompts (011: the prompts a run collected answers for,
--    and their digest) also holds what the run's per-engine rows sum to: its recipes and their digest,
--    how many rows, each measure. A trigger copies them when finish_run_extraction writes the row, which it
--    does after the per-engine rows (both are deleted together when a run is extracted again), so they
--    cannot drift apart. Two reads use it:
--    - a day of the time series reads its run's row instead of summing the run's engines (a year of
--      days was a year of aggregates);
--    - whether a window and its comparison period were measured alike (context.comparison.changes)
--      reads one index entry per run for the prompt and recipe digests, and the recipes from one row per
--      distinct set, where it read the per-engine aggregates twice and joined every run of both periods.
--      A run collected but not finished (no row yet) still has its prompt digest read live.
-- 2. Large row sets as arrays. The days of the time series and the rows of a group's prompts are sent as
--    JSON arrays in a fixed column order instead of objects repeating every column name (less than half
--    the bytes for the store to build and the function to parse), and sums are sent as the store computes
--    them: an exact numeric printed once, instead of converted to float8 first (JSON.parse gives the same
--    double from either text).
-- 3. No SQL function planned per call. An SQL-language function that cannot be inlined is planned again
--    every time it is called; the window's unfinished runs (called by the groups and group prompts reads)
--    and a run's engines (once per run of reads 12 and 13) are now PL/pgSQL, whose plans are kept per
--    backend like the reads' own.
-- 4. Read 13 in one call (api_run_read, replacing api_run and api_run_changes): the run is looked up once,
--    and the names that entered or left come from one full join per kind, ranked once for both the first
--    50 and the total (011 ran four anti-joins, each twice).
--
-- Old migrations are never edited, so the functions changed here are redefined whole.

ALTER TABLE fig_run_prompts
  ADD COLUMN recipes text[] NOT NULL DEFAULT '{}',
  ADD COLUMN recipes_digest text NOT NULL DEFAULT md5('{}'),
  ADD COLUMN engine_rows integer NOT NULL DEFAULT 0,
  ADD COLUMN answers bigint NOT NULL DEFAULT 0,
  ADD COLUMN extracted bigint NOT NULL DEFAULT 0,
  ADD COLUMN mentioned bigint NOT NULL DEFAULT 0,
  ADD COLUMN tracked_mentions bigint NOT NULL DEFAULT 0,
  ADD COLUMN brand_mentions bigint NOT NULL DEFAULT 0,
  ADD COLUMN position_sum numeric NOT NULL DEFAULT 0,
  ADD COLUMN position_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN sentiment_sum numeric NOT NULL DEFAULT 0,
  ADD COLUMN sentiment_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN citations bigint NOT NULL DEFAULT 0,
  ADD COLUMN owned_citations bigint NOT NULL DEFAULT 0,
  ADD COLUMN position_sq numeric NOT NULL DEFAULT 0,
  ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
-- A period's prompt and recipe digests are read from this index alone. The recipes themselves stay in the
-- table (read once per distinct set): a run may have as many recipes as engines, each up to 100
-- characters, more than an index entry may hold.
DROP INDEX fig_run_prompts_day;
CREATE INDEX fig_run_prompts_day ON fig_run_prompts (analysis_id, day) INCLUDE (run_id, digest, recipes_digest);

-- What a run's per-engine rows sum to: its recipes (sorted) and their digest, how many rows, and each
-- measure summed over its engines (the types sum() gives, so a day of the series reads as it did).
CREATE FUNCTION fig_run_summary(
  p_run uuid, OUT recipes text[], OUT recipes_digest text, OUT engine_rows integer,
  OUT answers bigint, OUT extracted bigint, OUT mentioned bigint, OUT tracked_mentions bigint, OUT brand_mentions bigint,
  OUT position_sum numeric, OUT position_n bigint, OUT sentiment_sum numeric, OUT sentiment_n bigint,
  OUT citations bigint, OUT owned_citations bigint, OUT position_sq numeric, OUT sentiment_sq numeric)
LANGUAGE sql STABLE AS $$
  SELECT x.recipes, md5(x.recipes::text), x.n, x.answers, x.extracted, x.mentioned, x.tracked_mentions, x.brand_mentions,
         x.position_sum, x.position_n, x.sentiment_sum, x.sentiment_n, x.citations, x.owned_citations, x.position_sq,
         x.sentiment_sq
    FROM (SELECT coalesce(array_agg(DISTINCT e.recipe ORDER BY e.recipe) FILTER (WHERE e.recipe IS NOT NULL), '{}') AS recipes,
                 count(*)::integer AS n,
                 coalesce(sum(e.answers), 0) AS answers,
                 coalesce(sum(e.extracted), 0) AS extracted,
                 coalesce(sum(e.mentioned), 0) AS mentioned,
                 coalesce(sum(e.tracked_mentions), 0) AS tracked_mentions,
                 coalesce(sum(e.brand_mentions), 0) AS brand_mentions,
                 coalesce(sum(e.position_sum), 0) AS position_sum,
                 coalesce(sum(e.position_n), 0) AS position_n,
                 coalesce(sum(e.sentiment_sum), 0) AS sentiment_sum,
                 coalesce(sum(e.sentiment_n), 0) AS sentiment_n,
                 coalesce(sum(e.citations), 0) AS citations,
                 coalesce(sum(e.owned_citations), 0) AS owned_citations,
                 coalesce(sum(e.position_sq), 0) AS position_sq,
                 coalesce(sum(e.sentiment_sq), 0) AS sentiment_sq
            FROM fig_run_engine e WHERE e.run_id = p_run) x
$$;

-- finish_run_extraction writes a run's per-engine rows, then its fig_run_prompts row (both are deleted
-- together when the run is extracted again): the row takes the run's summary as it is written.
CREATE FUNCTION fig_run_prompts_summary() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.* INTO NEW.recipes, NEW.recipes_digest, NEW.engine_rows,
                  NEW.answers, NEW.extracted, NEW.mentioned, NEW.tracked_mentions, NEW.brand_mentions,
                  NEW.position_sum, NEW.position_n, NEW.sentiment_sum, NEW.sentiment_n,
                  NEW.citations, NEW.owned_citations, NEW.position_sq, NEW.sentiment_sq
    FROM fig_run_summary(NEW.run_id) s;
  RETURN NEW;
END $$;
CREATE TRIGGER fig_run_prompts_summary BEFORE INSERT ON fig_run_prompts
  FOR EACH ROW EXECUTE FUNCTION fig_run_prompts_summary();

UPDATE fig_run_prompts f
   SET (recipes, recipes_digest, engine_rows,
        answers, extracted, mentioned, tracked_mentions, brand_mentions,
        position_sum, position_n, sentiment_sum, sentiment_n,
        citations, owned_citations, position_sq, sentiment_sq) = (SELECT s.* FROM fig_run_summary(f.run_id) s);

-- Every finished run has its row (finish_run_extraction writes it; 011 filled only runs that had
-- per-engine rows, so a run finished with no engine before 011 has none yet).
INSERT INTO fig_run_prompts (run_id, analysis_id, day, digest, prompts)
SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date, s.digest, s.prompts
  FROM runs r CROSS JOIN LATERAL fig_prompt_set(r.id) s
 WHERE r.state = 'finished' AND NOT EXISTS (SELECT 1 FROM fig_run_prompts f WHERE f.run_id = r.id);

-- What differs between a window and its comparison period, for a window that has one: the recipes of
-- each period and whether their prompt sets differ (when the digests differ, the sets themselves are
-- compared by fig_prompts_changed of 011). A run's row counts in the period holding its day (for a run
-- period, the run itself); a collected run without a row (collecting, extracting, or failed after its
-- collection) counts its digest read live and no recipe, as it has no per-engine rows.
CREATE FUNCTION fig_comparison(p_analysis uuid, w fig_window, OUT recipes text[], OUT previous_recipes text[],
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

CREATE OR REPLACE FUNCTION fig_common(p_analysis uuid, w fig_window) RETURNS json LANGUAGE plpgsql STABLE AS $$
DECLARE
  cur_lo timestamptz;
  cur_hi timestamptz;
  cmp record;
BEGIN
  SELECT p.lo, p.hi INTO cur_lo, cur_hi FROM fig_run_periods(w) p WHERE p.period = 0;
  IF w.prev_kind IS NOT NULL THEN
    cmp := fig_comparison(p_analysis, w);
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
    'prompts_changed', cmp.prompts_changed);
END $$;

-- The time series: a day's figures from its run's summary row; one array per day, columns in this order
-- (SERIES_COLUMNS in shared/reads/figures/timeseries.ts): day, id, state, pending, has_rows, then the
-- measures in the order of MEASURES (shared/reads/figures/load.ts).
CREATE OR REPLACE FUNCTION api_fig_series(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
LANGUAGE plpgsql STABLE AS $$
DECLARE
  w fig_window := fig_resolve_window(p_analysis, p_window, p_from, p_to);
  lo timestamptz := w.cur_from::timestamp AT TIME ZONE 'UTC';
  hi timestamptz := (w.cur_to + 1)::timestamp AT TIME ZONE 'UTC';
BEGIN
  RETURN json_build_object(
    'common', fig_common(p_analysis, w),
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
          FROM (SELECT DISTINCT ON (1) (r.started_at AT TIME ZONE 'UTC')::date AS day, r.id, r.state
                  FROM runs r
                 WHERE r.analysis_id = p_analysis AND r.collected_at IS NOT NULL AND r.started_at >= lo AND r.started_at < hi
                 ORDER BY 1, r.started_at DESC, r.id DESC) d
          LEFT JOIN fig_run_prompts s ON s.run_id = d.id
          LEFT JOIN LATERAL (
            SELECT sum(e.collected)::integer AS pending FROM run_engines e WHERE e.run_id = d.id AND d.state <> 'finished') u ON true
         WHERE w.cur_kind IS NOT NULL) x));
END $$;

-- A page of a group's prompts: its rows as arrays, columns in this order (PROMPT_ROW_COLUMNS in
-- shared/reads/figures/groups.ts): period, prompt_id, engine, then the measures in the order of MEASURES.
CREATE OR REPLACE FUNCTION api_fig_group_prompts(p_analysis uuid, p_window text, p_from date, p_to date, p_group uuid, p_none boolean,
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

-- The runs of the window still extracting (006), in PL/pgSQL like the reads that call it: an SQL function
-- that cannot be inlined is planned again on every call, which cost the groups and group prompts reads
-- more than the rest of their pending-answer lookup.
CREATE OR REPLACE FUNCTION fig_unfinished_runs(p_analysis uuid, w fig_window) RETURNS uuid[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(r.id), '{}')
            FROM fig_run_periods(w) p
            JOIN runs r ON r.analysis_id = p_analysis AND r.state <> 'finished' AND r.collected_at IS NOT NULL
                       AND r.started_at >= p.lo AND r.started_at < p.hi AND (p.run IS NULL OR r.id = p.run)
           WHERE p.period = 0);
END $$;

-- ---------------------------------------------------------------------------------------------------
-- Read 13 (a run), whose changes (011) had made it cost twice its statement before.

-- A run's engines (006), in PL/pgSQL: as an SQL function that cannot be inlined it was planned again for
-- every run it described (once per run read, once per run of a runs page).
CREATE OR REPLACE FUNCTION api_run_engines(p_run uuid, p_engines text[]) RETURNS json LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT json_agg(json_build_object('engine', re.engine, 'name', e.name, 'state', re.state, 'expected', re.expected,
                                            'collected', re.collected, 'extracted', re.extracted, 'failed', re.failed,
                                            'recipe', re.recipe)
                          ORDER BY array_position(p_engines, re.engine) NULLS LAST, re.engine)
            FROM run_engines re JOIN engines e ON e.key = re.engine
           WHERE re.run_id = p_run);
END $$;

-- What changed between a finished run and the finished run before it (p_prev: NULL when there is none),
-- as api_run_changes of 011 answered it: the names that entered or left come from one full join of the
-- two runs' names per kind (011 ran four anti-joins twice each, for a list and for its count), ranked
-- once per set for both its first 50 and its total.
CREATE FUNCTION fig_run_changes(p_run uuid, p_prev uuid, p_prev_started timestamptz) RETURNS json LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    WITH moved AS (
      SELECT CASE WHEN p.brand IS NULL THEN 'brands_entered' ELSE 'brands_left' END AS list,
             coalesce(c.brand, p.brand) AS name, coalesce(c.mentions, p.mentions) AS n
        FROM (SELECT b.brand, b.mentions FROM fig_run_brand b WHERE b.run_id = p_run) c
        FULL JOIN (SELECT b.brand, b.mentions FROM fig_run_brand b WHERE b.run_id = p_prev) p ON p.brand = c.brand
       WHERE p_prev IS NOT NULL AND (c.brand IS NULL OR p.brand IS NULL)
      UNION ALL
      SELECT CASE WHEN p.domain IS NULL THEN 'domains_entered' ELSE 'domains_left' END,
             coalesce(c.domain, p.domain), coalesce(c.citations, p.citations)
        FROM (SELECT d.domain, d.citations FROM fig_run_domain d WHERE d.run_id = p_run) c
        FULL JOIN (SELECT d.domain, d.citations FROM fig_run_domain d WHERE d.run_id = p_prev) p ON p.domain = c.domain
       WHERE p_prev IS NOT NULL AND (c.domain IS NULL OR p.domain IS NULL)
    ), ranked AS (
      SELECT m.list, m.name, row_number() OVER (PARTITION BY m.list ORDER BY m.n DESC, m.name COLLATE "C") AS i FROM moved m
    )
    SELECT json_build_object(
      'previous_run', CASE WHEN p_prev IS NOT NULL THEN json_build_object('id', p_prev, 'started_at', p_prev_started) END,
      'engines', (SELECT json_agg(json_build_object('run', CASE WHEN e.run_id = p_run THEN 0 ELSE 1 END, 'engine', e.engine,
                                                    'name', coalesce(n.name, e.engine), 'mentioned', e.mentioned, 'extracted', e.extracted))
                    FROM fig_run_engine e LEFT JOIN engines n ON n.key = e.engine
                   WHERE e.run_id = p_run OR e.run_id = p_prev),
      'brands_entered', coalesce(json_agg(r.name ORDER BY r.i) FILTER (WHERE r.list = 'brands_entered' AND r.i <= 50), '[]'),
      'brands_entered_total', count(*) FILTER (WHERE r.list = 'brands_entered'),
      'brands_left', coalesce(json_agg(r.name ORDER BY r.i) FILTER (WHERE r.list = 'brands_left' AND r.i <= 50), '[]'),
      'brands_left_total', count(*) FILTER (WHERE r.list = 'brands_left'),
      'domains_entered', coalesce(json_agg(r.name ORDER BY r.i) FILTER (WHERE r.list = 'domains_entered' AND r.i <= 50), '[]'),
      'domains_entered_total', count(*) FILTER (WHERE r.list = 'domains_entered'),
      'domains_left', coalesce(json_agg(r.name ORDER BY r.i) FILTER (WHERE r.list = 'domains_left' AND r.i <= 50), '[]'),
      'domains_left_total', count(*) FILTER (WHERE r.list = 'domains_left'))
      FROM ranked r);
END $$;

-- Read 13 in one call: the run (the latest when p_run is NULL), its engines, its changes and the
-- analysis's configured engines (for the order of the per-engine changes). Replaces api_run (006) and
-- api_run_changes (011), dropped below.
CREATE FUNCTION api_run_read(p_analysis uuid, p_run uuid)
RETURNS TABLE (id uuid, state text, started_at timestamptz, collected_at timestamptz, finished_at timestamptz, engines json,
               changes json, analysis_engines text[])
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  r record;
  prev_id uuid;
  prev_started timestamptz;
BEGIN
  SELECT x.id, x.state, x.started_at, x.collected_at, x.finished_at, a.engines INTO r
    FROM runs x JOIN analyses a ON a.id = x.analysis_id
   WHERE x.analysis_id = p_analysis AND (p_run IS NULL OR x.id = p_run)
   ORDER BY x.started_at DESC, x.id DESC
   LIMIT 1;
  IF r.id IS NULL THEN
    RETURN;
  END IF;
  -- The previous finished run by start (then id); changes stay null until the run itself is finished.
  IF r.state = 'finished' THEN
    SELECT x.id, x.started_at INTO prev_id, prev_started
      FROM runs x
     WHERE x.analysis_id = p_analysis AND x.state = 'finished' AND x.started_at <= r.started_at
       AND (x.started_at < r.started_at OR x.id < r.id)
     ORDER BY x.started_at DESC, x.id DESC
     LIMIT 1;
  END IF;
  RETURN QUERY
  SELECT r.id, r.state, r.started_at, r.collected_at, r.finished_at, api_run_engines(r.id, r.engines),
         CASE WHEN r.state = 'finished' THEN fig_run_changes(r.id, prev_id, prev_started) END, r.engines;
END $$;

DROP FUNCTION api_run(uuid, uuid);
DROP FUNCTION api_run_changes(uuid, uuid);
