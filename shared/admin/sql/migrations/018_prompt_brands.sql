-- What the store holds to split the competitors read by kind of prompt (branded or not): the brands'
-- counts per prompt, kept where the other run and month rows are kept.
--
--   fig_run_prompt_brand    one row per finished run x prompt x brand named (summed over engines), the
--                           brand named as the competitor read names it (fig_run_brand): mentions,
--                           answers naming it, and its first position per such answer (sum, count, sum
--                           of squares). Summed over prompts, a run's rows are its fig_run_brand rows.
--   fig_month_prompt_brand  the same counts per analysis x calendar month (UTC) x prompt x brand: the sum
--                           of the run rows of the month.
--
-- finish_run_extraction writes a run's rows of this grain and of fig_run_brand from the same per-answer
-- facts, in one statement, so that the two kinds of prompt add up to the pooled brand figures; it then
-- settles the month rows of this grain for every month the run's rows were or are in
-- (fig_settle_prompt_brands, beside fig_settle_month of migration 016), under the analysis's lock, so a
-- repeated or concurrent finish converges as for the other grains. The reads use them only when a caller
-- asks for segments (shared/admin/sql/functions/figures.sql, fig_branded_brands); their cost grows with
-- prompts x brands named x (months + edge days) of the window.
--
-- Rows of runs already aggregated (those with fig_run_brand rows) are filled from the raw answers and
-- mentions below, and the month rows as their sums. `npm run admin -- verify-aggregates [--repair]`
-- compares the run rows with the raw rows and the month rows with the run rows (docs/administration.md):
-- a finish that started before this migration committed runs the former definition and leaves its run
-- without rows of this grain, until the run is finished again or a repair adds them.

CREATE TABLE fig_run_prompt_brand (
  run_id uuid NOT NULL REFERENCES runs (id), analysis_id uuid NOT NULL, day date NOT NULL,
  prompt_id uuid NOT NULL, brand text NOT NULL,
  mentions integer NOT NULL, answers integer NOT NULL, position_sum bigint NOT NULL, position_n integer NOT NULL,
  position_sq bigint NOT NULL,
  PRIMARY KEY (run_id, prompt_id, brand)
);
-- A window's edge days are read from this index alone.
CREATE INDEX fig_run_prompt_brand_day ON fig_run_prompt_brand (analysis_id, day) INCLUDE (
  prompt_id, brand, mentions, answers, position_sum, position_n, position_sq);

CREATE TABLE fig_month_prompt_brand (
  analysis_id uuid NOT NULL, month date NOT NULL, prompt_id uuid NOT NULL, brand text NOT NULL,
  mentions integer NOT NULL, answers integer NOT NULL, position_sum bigint NOT NULL, position_n integer NOT NULL,
  position_sq bigint NOT NULL,
  PRIMARY KEY (analysis_id, month, prompt_id, brand)
) WITH (fillfactor = 70);

-- The name a mention's brand has in the brand rows of a finished run: the tracked brand and a direct
-- competitor as fig_run_brand named them when the run was finished (a rename since does not reach a
-- finished run, so its rows per prompt keep adding up to its brand rows), else as finishing would name them
-- now; any other brand as the answer names it. The backfill below and verify-aggregates name brands so.
CREATE FUNCTION fig_run_brand_name(p_run uuid, p_tracked boolean, p_competitor uuid, p_named text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    CASE WHEN p_tracked THEN (SELECT rb.brand FROM fig_run_brand rb WHERE rb.run_id = p_run AND rb.is_tracked LIMIT 1)
         WHEN p_competitor IS NOT NULL
         THEN (SELECT rb.brand FROM fig_run_brand rb WHERE rb.run_id = p_run AND rb.competitor_id = p_competitor LIMIT 1)
    END,
    CASE WHEN p_tracked
         THEN (SELECT b.name FROM runs r JOIN analyses a ON a.id = r.analysis_id JOIN brands b ON b.id = a.brand_id WHERE r.id = p_run)
         ELSE coalesce((SELECT c.name FROM competitors c WHERE c.id = p_competitor), p_named)
    END)
$$;

-- The brands per prompt of every run that has brand rows, from the raw answers and mentions as
-- finish_run_extraction computes them, each brand named as the run's brand rows name it, on the run's day as
-- stored there. The backfill below writes them; verify-aggregates compares fig_run_prompt_brand with them.
CREATE FUNCTION fig_prompt_brands_from_rows()
RETURNS TABLE (run_id uuid, analysis_id uuid, day date, prompt_id uuid, brand text, mentions integer, answers integer,
               position_sum bigint, position_n integer, position_sq bigint)
LANGUAGE sql STABLE AS $$
  SELECT k.run_id, k.analysis_id, k.day, x.prompt_id, f.brand, sum(f.n)::integer, count(*)::integer,
         sum(f.first_pos)::bigint, count(*)::integer, sum(f.first_pos::bigint * f.first_pos)::bigint
    FROM (SELECT DISTINCT b.run_id, b.analysis_id, b.day FROM fig_run_brand b) k
    JOIN answers x ON x.run_id = k.run_id AND x.extraction_state = 'extracted'
    CROSS JOIN LATERAL (
      SELECT fig_run_brand_name(k.run_id, m.is_tracked, m.competitor_id, m.brand_name) AS brand,
             count(*) AS n, min(m.position) AS first_pos
        FROM mentions m
       WHERE m.answer_id = x.id
       GROUP BY 1
    ) f
   GROUP BY k.run_id, k.analysis_id, k.day, x.prompt_id, f.brand
$$;

-- Backfill: the runs already aggregated; then the months.
INSERT INTO fig_run_prompt_brand (run_id, analysis_id, day, prompt_id, brand, mentions, answers, position_sum, position_n, position_sq)
SELECT * FROM fig_prompt_brands_from_rows();

INSERT INTO fig_month_prompt_brand (analysis_id, month, prompt_id, brand, mentions, answers, position_sum, position_n, position_sq)
SELECT analysis_id, date_trunc('month', day)::date, prompt_id, brand, sum(mentions), sum(answers), sum(position_sum),
       sum(position_n), sum(position_sq)
  FROM fig_run_prompt_brand
 GROUP BY 1, 2, 3, 4;

-- The month rows of this grain of one analysis and month, set to the sums of the run rows of that month
-- (rows no run of the month has any more set to zero), as fig_settle_month does for the other grains.
CREATE FUNCTION fig_settle_prompt_brands(p_analysis uuid, p_month date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  last_day CONSTANT date := (p_month + interval '1 month')::date - 1;
BEGIN
  UPDATE fig_month_prompt_brand t SET mentions = 0, answers = 0, position_sum = 0, position_n = 0, position_sq = 0
   WHERE t.analysis_id = p_analysis AND t.month = p_month
     AND NOT EXISTS (SELECT 1 FROM fig_run_prompt_brand r
                      WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day
                        AND r.prompt_id = t.prompt_id AND r.brand = t.brand);
  INSERT INTO fig_month_prompt_brand AS t (analysis_id, month, prompt_id, brand, mentions, answers, position_sum, position_n, position_sq)
  SELECT p_analysis, p_month, r.prompt_id, r.brand, sum(r.mentions), sum(r.answers), sum(r.position_sum), sum(r.position_n),
         sum(r.position_sq)
    FROM fig_run_prompt_brand r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day
   GROUP BY r.prompt_id, r.brand
  ON CONFLICT (analysis_id, month, prompt_id, brand) DO UPDATE SET
    mentions = excluded.mentions, answers = excluded.answers, position_sum = excluded.position_sum,
    position_n = excluded.position_n, position_sq = excluded.position_sq;
END $$;

-- Migration 016's finish, which also writes and settles this grain.
CREATE OR REPLACE FUNCTION finish_run_extraction(p_run uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_analysis uuid;
  v_months date[];
  m date;
BEGIN
  SELECT r.analysis_id INTO v_analysis FROM runs r WHERE r.id = p_run;
  IF v_analysis IS NULL THEN
    RETURN;
  END IF;
  PERFORM fig_lock_analysis(v_analysis);
  -- The months the run's rows are in now, and will be in: its start may have been corrected since.
  SELECT array_agg(DISTINCT x.month) INTO v_months
    FROM (SELECT date_trunc('month', f.day)::date AS month FROM fig_run_prompts f WHERE f.run_id = p_run
          UNION ALL
          SELECT date_trunc('month', e.day)::date FROM fig_run_engine e WHERE e.run_id = p_run
          UNION ALL
          SELECT date_trunc('month', r.started_at AT TIME ZONE 'UTC')::date FROM runs r WHERE r.id = p_run) x;

  DELETE FROM fig_run_engine WHERE run_id = p_run;
  DELETE FROM fig_run_group WHERE run_id = p_run;
  DELETE FROM fig_run_prompt WHERE run_id = p_run;
  DELETE FROM fig_run_brand WHERE run_id = p_run;
  DELETE FROM fig_run_prompt_brand WHERE run_id = p_run;
  DELETE FROM fig_run_domain WHERE run_id = p_run;
  DELETE FROM fig_run_prompts WHERE run_id = p_run;

  -- One statement: per-answer facts computed once, then summed per engine, per group and per prompt.
  -- LATERAL lookups by answer keep every step an index probe, whatever the planner's statistics say
  -- (a pipeline or a seed calls this right after bulk inserts, before any ANALYZE).
  WITH r AS (
    SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date AS day, a.owned_domains
      FROM runs r JOIN analyses a ON a.id = r.analysis_id WHERE r.id = p_run
  ), a AS (
    SELECT x.engine, x.prompt_id, coalesce(p.group_id, '00000000-0000-0000-0000-000000000000') AS group_key,
           (x.extraction_state = 'extracted') AS ok,
           coalesce(m.tracked_n, 0) AS tracked_n, coalesce(m.brand_n, 0) AS brand_n, m.first_pos,
           coalesce(m.sent_sum, 0) AS sent_sum, coalesce(m.sent_n, 0) AS sent_n, coalesce(m.sent_sq, 0) AS sent_sq,
           coalesce(c.cit_n, 0) AS cit_n, coalesce(c.owned_n, 0) AS owned_n
      FROM r JOIN answers x ON x.run_id = r.id JOIN prompts p ON p.id = x.prompt_id
      LEFT JOIN LATERAL (
        SELECT count(*) FILTER (WHERE m.is_tracked) AS tracked_n, count(*) AS brand_n,
               min(m.position) FILTER (WHERE m.is_tracked) AS first_pos,
               sum(m.sentiment) FILTER (WHERE m.is_tracked) AS sent_sum,
               sum(m.sentiment * m.sentiment) FILTER (WHERE m.is_tracked) AS sent_sq,
               count(m.sentiment) FILTER (WHERE m.is_tracked) AS sent_n
          FROM mentions m WHERE m.answer_id = x.id AND x.extraction_state = 'extracted'
      ) m ON true
      LEFT JOIN LATERAL (
        SELECT count(*) AS cit_n, count(*) FILTER (WHERE c.domain = ANY (r.owned_domains)) AS owned_n
          FROM citations c WHERE c.answer_id = x.id AND x.extraction_state = 'extracted'
      ) c ON true
  ), e AS (
    INSERT INTO fig_run_engine (run_id, analysis_id, day, engine, expected, collected, failed, recipe, answers, extracted, mentioned,
                                tracked_mentions, brand_mentions, position_sum, position_n, sentiment_sum, sentiment_n,
                                citations, owned_citations, position_sq, sentiment_sq)
    SELECT r.id, r.analysis_id, r.day, re.engine, re.expected, re.collected, re.failed, re.recipe,
           coalesce(s.answers, 0), coalesce(s.extracted, 0), coalesce(s.mentioned, 0),
           coalesce(s.tracked_mentions, 0), coalesce(s.brand_mentions, 0),
           coalesce(s.position_sum, 0), coalesce(s.position_n, 0), coalesce(s.sentiment_sum, 0), coalesce(s.sentiment_n, 0),
           coalesce(s.citations, 0), coalesce(s.owned_citations, 0), coalesce(s.position_sq, 0), coalesce(s.sentiment_sq, 0)
      FROM r JOIN run_engines re ON re.run_id = r.id
      LEFT JOIN (
        SELECT engine, count(*)::int AS answers, count(*) FILTER (WHERE ok)::int AS extracted,
               count(*) FILTER (WHERE ok AND tracked_n > 0)::int AS mentioned,
               sum(tracked_n)::int AS tracked_mentions, sum(brand_n)::int AS brand_mentions,
               coalesce(sum(first_pos), 0)::bigint AS position_sum, count(first_pos)::int AS position_n,
               sum(sent_sum) AS sentiment_sum, sum(sent_n)::int AS sentiment_n,
               sum(cit_n)::int AS citations, sum(owned_n)::int AS owned_citations,
               coalesce(sum(first_pos::bigint * first_pos), 0)::bigint AS position_sq, sum(sent_sq) AS sentiment_sq
          FROM a GROUP BY engine
      ) s ON s.engine = re.engine
  ), g AS (
    INSERT INTO fig_run_group (run_id, analysis_id, day, group_key, answers, extracted, mentioned, tracked_mentions, brand_mentions,
                               position_sum, position_n, sentiment_sum, sentiment_n, citations, owned_citations, position_sq, sentiment_sq)
    SELECT r.id, r.analysis_id, r.day, a.group_key, count(*), count(*) FILTER (WHERE ok),
           count(*) FILTER (WHERE ok AND tracked_n > 0), sum(tracked_n), sum(brand_n),
           coalesce(sum(first_pos), 0), count(first_pos), sum(sent_sum), sum(sent_n), sum(cit_n), sum(owned_n),
           coalesce(sum(first_pos::bigint * first_pos), 0), sum(sent_sq)
      FROM a, r GROUP BY r.id, r.analysis_id, r.day, a.group_key
  )
  INSERT INTO fig_run_prompt (run_id, analysis_id, day, prompt_id, engine, answers, extracted, mentioned, tracked_mentions, brand_mentions,
                              position_sum, position_n, sentiment_sum, sentiment_n, citations, owned_citations, position_sq, sentiment_sq)
  SELECT r.id, r.analysis_id, r.day, a.prompt_id, a.engine, count(*), count(*) FILTER (WHERE ok),
         count(*) FILTER (WHERE ok AND tracked_n > 0), sum(tracked_n), sum(brand_n),
         coalesce(sum(first_pos), 0), count(first_pos), sum(sent_sum), sum(sent_n), sum(cit_n), sum(owned_n),
         coalesce(sum(first_pos::bigint * first_pos), 0), sum(sent_sq)
    FROM a, r GROUP BY r.id, r.analysis_id, r.day, a.prompt_id, a.engine;

  -- One row per answer and brand as the competitor read names it (the tracked brand by its configured name,
  -- a direct competitor by its configured name, any other brand as named), whatever spellings the answer
  -- used: grouped by name inside the answer, so `answers` counts an answer once.
  -- One row per answer and brand as the competitor read names it (the tracked brand by its configured name,
  -- a direct competitor by its configured name, any other brand as named), whatever spellings the answer
  -- used: grouped by name inside the answer, so `answers` counts an answer once. Summed per prompt and
  -- brand, then per brand, from the same rows.
  WITH f AS (
    SELECT r.id AS run_id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date AS day, x.prompt_id, f.brand,
           f.is_tracked, f.competitor_id, f.n, f.first_pos
      FROM runs r
      JOIN analyses a ON a.id = r.analysis_id
      JOIN brands b ON b.id = a.brand_id
      JOIN answers x ON x.run_id = r.id AND x.extraction_state = 'extracted'
      CROSS JOIN LATERAL (
        SELECT CASE WHEN m.is_tracked THEN b.name ELSE coalesce(k.name, m.brand_name) END AS brand,
               bool_or(m.is_tracked) AS is_tracked, (array_agg(m.competitor_id ORDER BY m.position))[1] AS competitor_id,
               count(*) AS n, min(m.position) AS first_pos
          FROM mentions m LEFT JOIN competitors k ON k.id = m.competitor_id
         WHERE m.answer_id = x.id
         GROUP BY 1
      ) f
     WHERE r.id = p_run
  ), pb AS (
    INSERT INTO fig_run_prompt_brand (run_id, analysis_id, day, prompt_id, brand, mentions, answers, position_sum, position_n, position_sq)
    SELECT f.run_id, f.analysis_id, f.day, f.prompt_id, f.brand, sum(f.n)::int, count(*)::int,
           sum(f.first_pos)::bigint, count(*)::int, sum(f.first_pos::bigint * f.first_pos)::bigint
      FROM f GROUP BY f.run_id, f.analysis_id, f.day, f.prompt_id, f.brand
  )
  INSERT INTO fig_run_brand (run_id, analysis_id, day, brand, is_tracked, competitor_id, mentions, answers, position_sum, position_n, position_sq)
  SELECT f.run_id, f.analysis_id, f.day, f.brand,
         bool_or(f.is_tracked), (array_agg(f.competitor_id))[1], sum(f.n)::int, count(*)::int,
         sum(f.first_pos)::bigint, count(*)::int, sum(f.first_pos::bigint * f.first_pos)::bigint
    FROM f GROUP BY f.run_id, f.analysis_id, f.day, f.brand;

  INSERT INTO fig_run_domain
  SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date, f.domain, sum(f.n)::int, count(*)::int
    FROM runs r
    JOIN answers x ON x.run_id = r.id AND x.extraction_state = 'extracted'
    CROSS JOIN LATERAL (SELECT c.domain, count(*) AS n FROM citations c WHERE c.answer_id = x.id GROUP BY c.domain) f
   WHERE r.id = p_run
   GROUP BY r.id, r.analysis_id, r.started_at, f.domain;

  INSERT INTO fig_run_prompts (run_id, analysis_id, day, digest, prompts)
  SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date, s.digest, s.prompts
    FROM runs r CROSS JOIN LATERAL fig_prompt_set(r.id) s WHERE r.id = p_run;

  FOREACH m IN ARRAY v_months LOOP
    PERFORM fig_settle_month(v_analysis, m);
    PERFORM fig_settle_prompt_brands(v_analysis, m);
  END LOOP;
END
$$;
