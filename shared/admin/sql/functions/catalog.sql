-- The catalog family's reads (shared/reads/catalog/): the prompt catalogue, runs, answers.
--
-- Every function here is written CREATE OR REPLACE and defined nowhere else: each migrate run applies
-- this file whole, after the migrations (shared/admin/migrate.ts). Only functions live here; the tables
-- and types they read belong to the migrations. Why the reads are functions, and how to change one:
-- docs/contributing.md, "The store's SQL".

-- list_prompts: the prompt catalogue, each prompt with whether it names the tracked brand
-- (fig_prompt_branded: the pipeline's classification, else the rule over the analysis's names, read and
-- folded once per call).
CREATE OR REPLACE FUNCTION api_prompt_catalog(p_analysis uuid)
RETURNS TABLE (id uuid, text text, group_id uuid, group_name text, language text, created_at timestamptz,
               branded boolean, branded_source text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  patterns text[] := fig_brand_patterns(p_analysis);
BEGIN
  RETURN QUERY
  SELECT p.id, p.text, p.group_id, g.name, p.language, p.created_at,
         fig_prompt_branded(p.branded, p.text, patterns),
         fig_prompt_branded_source(p.branded)
    FROM prompts p LEFT JOIN prompt_groups g ON g.id = p.group_id
   WHERE p.analysis_id = p_analysis
   ORDER BY p.created_at, p.id;
END $$;

-- list_prompts on MCP: one page of the catalogue, `p_limit` prompts from `p_offset` in the same order, and
-- the analysis's total kept by the store (prompt_totals), so a page never reads the rest of the catalogue.
-- The offset is skipped on the index alone (prompts_catalogue), the page's rows then fetched by id. One row
-- per prompt of the page; a page past the end is one row with the total and a NULL id. Branded as above.
CREATE OR REPLACE FUNCTION api_prompts_page(p_analysis uuid, p_limit integer, p_offset bigint)
RETURNS TABLE (total integer, id uuid, text text, group_id uuid, group_name text, language text, created_at timestamptz,
               branded boolean, branded_source text)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
DECLARE
  patterns text[] := fig_brand_patterns(p_analysis);
BEGIN
  RETURN QUERY
  SELECT coalesce((SELECT t.n FROM prompt_totals t WHERE t.analysis_id = p_analysis), 0),
         p.id, p.text, p.group_id, g.name, p.language, p.created_at,
         CASE WHEN p.id IS NULL THEN NULL ELSE fig_prompt_branded(p.branded, p.text, patterns) END,
         CASE WHEN p.id IS NULL THEN NULL ELSE fig_prompt_branded_source(p.branded) END
    FROM (SELECT 1) one
    LEFT JOIN (SELECT k.id FROM prompts k WHERE k.analysis_id = p_analysis
                ORDER BY k.created_at, k.id LIMIT p_limit OFFSET p_offset) page ON true
    LEFT JOIN prompts p ON p.id = page.id
    LEFT JOIN prompt_groups g ON g.id = p.group_id
   ORDER BY p.created_at, p.id;
END $$;

-- A run's engines, in the order of the analysis's engines. PL/pgSQL: as an SQL function that cannot be
-- inlined it would be planned again for every run it describes.
CREATE OR REPLACE FUNCTION api_run_engines(p_run uuid, p_engines text[]) RETURNS json LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT json_agg(json_build_object('engine', re.engine, 'name', e.name, 'state', re.state, 'expected', re.expected,
                                            'collected', re.collected, 'extracted', re.extracted, 'failed', re.failed,
                                            'recipe', re.recipe)
                          ORDER BY array_position(p_engines, re.engine) NULLS LAST, re.engine)
            FROM run_engines re JOIN engines e ON e.key = re.engine
           WHERE re.run_id = p_run);
END $$;

-- list_runs: the most recent runs, and how many there are.
CREATE OR REPLACE FUNCTION api_runs(p_analysis uuid, p_limit integer)
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

-- What changed between a finished run and the finished run before it (p_prev: NULL when there is none):
-- brands and domains that entered or left, at most 50 of each (most mentioned / cited first, then by name
-- in code point order) and their totals, from one full join of the two runs' names per kind, ranked once
-- per set for both the first 50 and the total; the counts behind the tracked brand's visibility per
-- engine; and the engines whose known model differs between the two runs.
CREATE OR REPLACE FUNCTION fig_run_changes(p_run uuid, p_prev uuid, p_prev_started timestamptz) RETURNS json LANGUAGE plpgsql STABLE AS $$
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
      'models', CASE WHEN p_prev IS NOT NULL THEN
                  (SELECT coalesce(json_agg(json_build_object('engine', c.engine, 'previous', p.model, 'current', c.model)), '[]')
                     FROM run_engines c JOIN run_engines p ON p.run_id = p_prev AND p.engine = c.engine
                    WHERE c.run_id = p_run AND c.model IS NOT NULL AND p.model IS NOT NULL AND c.model <> p.model) END,
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

-- get_run in one call: the run (the latest when p_run is NULL), its engines, what changed since the
-- finished run before it (null until the run itself is finished) and the analysis's configured engines
-- (for the order of the per-engine changes).
CREATE OR REPLACE FUNCTION api_run_read(p_analysis uuid, p_run uuid)
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

-- list_answers: one page of answers in whole UTC days [p_first, p_last] (p_first NULL: no lower bound),
-- most recent first, after the keyset position (p_at, p_id) of the previous page; and the exact total of
-- the window from the per-day counts (answer_days), O(days) instead of O(answers).
CREATE OR REPLACE FUNCTION api_answers(p_analysis uuid, p_first date, p_last date, p_at timestamptz, p_id uuid, p_limit integer)
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

-- get_answer: one answer of the analysis, with its mentions and citations in order.
CREATE OR REPLACE FUNCTION api_answer(p_analysis uuid, p_answer uuid)
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
