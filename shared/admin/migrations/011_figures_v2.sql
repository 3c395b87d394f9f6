-- Figures v2 (issue 21): intervals on the means, comparable periods, what changed between two runs.
--
-- 1. Sums of squares. A mean's Student t interval and the Welch interval of a change between two means
--    need, besides the sum and the count, the sum of the squared values. Every aggregate that sums a
--    mean's values now sums their squares too (position_sq: the squares of the tracked brand's first
--    position per answer naming it, or of a brand's own in fig_*_brand; sentiment_sq: the squares of the
--    scored sentiments of the tracked brand's mentions), so a read stays O(months + days). Existing rows
--    are filled from the raw mentions below (month rows as the sum of their run rows), without
--    re-extracting: what else a row holds (owned citations as declared at extraction) is left as it is.
--
-- 2. The prompts a run collected answers for (fig_run_prompts): the sorted set and its digest, so "the set
--    of prompts with collected answers differs between a window and its comparison period" costs a row
--    per run of the two periods, and unnesting a set only once per distinct digest.
--
-- 3. The read functions of 006 return the squares; fig_common returns the recipes served in the
--    comparison period and whether the prompt sets differ; api_run_changes says what changed between a
--    run and the finished run before it (read 13), with bounded work (LIMIT 50 per list, index probes).

ALTER TABLE fig_run_engine ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_month_engine ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_run_group ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_month_group ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_run_prompt ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_month_prompt ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_run_brand ADD COLUMN position_sq bigint NOT NULL DEFAULT 0;
ALTER TABLE fig_month_brand ADD COLUMN position_sq bigint NOT NULL DEFAULT 0;

-- The group prompts read (10) reads a page of prompts over the edge days from this index alone: it
-- covers the squares too.
DROP INDEX fig_run_prompt_day;
CREATE INDEX fig_run_prompt_day ON fig_run_prompt (prompt_id, day) INCLUDE (
  analysis_id, engine, answers, extracted, mentioned, tracked_mentions, brand_mentions,
  position_sum, position_n, sentiment_sum, sentiment_n, citations, owned_citations, position_sq, sentiment_sq);

CREATE TABLE fig_run_prompts (
  run_id uuid PRIMARY KEY REFERENCES runs (id), analysis_id uuid NOT NULL, day date NOT NULL,
  digest text NOT NULL,          -- md5 of the sorted set below, as text
  prompts uuid[] NOT NULL        -- prompts with at least one collected answer in the run, sorted
);
CREATE INDEX fig_run_prompts_day ON fig_run_prompts (analysis_id, day);

-- The prompts of a run's collected answers (any extraction state) and their digest.
CREATE FUNCTION fig_prompt_set(p_run uuid, OUT digest text, OUT prompts uuid[]) LANGUAGE sql STABLE AS $$
  SELECT md5(coalesce(array_agg(x.prompt_id ORDER BY x.prompt_id), '{}')::text), coalesce(array_agg(x.prompt_id ORDER BY x.prompt_id), '{}')
    FROM (SELECT DISTINCT a.prompt_id FROM answers a WHERE a.run_id = p_run) x
$$;

-- Backfill: per-answer facts of the runs already aggregated, then each grain from them.
CREATE TEMP TABLE fig_sq_answers ON COMMIT DROP AS
SELECT x.run_id, x.engine, x.prompt_id, coalesce(p.group_id, '00000000-0000-0000-0000-000000000000'::uuid) AS group_key,
       m.first_pos, coalesce(m.sent_sq, 0) AS sent_sq
  FROM answers x
  JOIN prompts p ON p.id = x.prompt_id
  CROSS JOIN LATERAL (
    SELECT min(m.position) FILTER (WHERE m.is_tracked) AS first_pos,
           sum(m.sentiment * m.sentiment) FILTER (WHERE m.is_tracked) AS sent_sq
      FROM mentions m WHERE m.answer_id = x.id
  ) m
 WHERE x.extraction_state = 'extracted' AND (m.first_pos IS NOT NULL OR m.sent_sq IS NOT NULL)
   AND EXISTS (SELECT 1 FROM fig_run_engine e WHERE e.run_id = x.run_id);

UPDATE fig_run_engine t SET position_sq = s.psq, sentiment_sq = s.ssq
  FROM (SELECT run_id, engine, coalesce(sum(first_pos::bigint * first_pos), 0)::bigint AS psq, sum(sent_sq) AS ssq
          FROM fig_sq_answers GROUP BY 1, 2) s
 WHERE t.run_id = s.run_id AND t.engine = s.engine;
UPDATE fig_run_group t SET position_sq = s.psq, sentiment_sq = s.ssq
  FROM (SELECT run_id, group_key, coalesce(sum(first_pos::bigint * first_pos), 0)::bigint AS psq, sum(sent_sq) AS ssq
          FROM fig_sq_answers GROUP BY 1, 2) s
 WHERE t.run_id = s.run_id AND t.group_key = s.group_key;
UPDATE fig_run_prompt t SET position_sq = s.psq, sentiment_sq = s.ssq
  FROM (SELECT run_id, prompt_id, engine, coalesce(sum(first_pos::bigint * first_pos), 0)::bigint AS psq, sum(sent_sq) AS ssq
          FROM fig_sq_answers GROUP BY 1, 2, 3) s
 WHERE t.run_id = s.run_id AND t.prompt_id = s.prompt_id AND t.engine = s.engine;
UPDATE fig_run_brand t SET position_sq = s.psq
  FROM (SELECT x.run_id, coalesce(k.name, f.brand_name) AS brand, sum(f.first_pos::bigint * f.first_pos)::bigint AS psq
          FROM answers x
          CROSS JOIN LATERAL (
            SELECT m.brand_name, m.competitor_id, min(m.position) AS first_pos
              FROM mentions m WHERE m.answer_id = x.id GROUP BY m.brand_name, m.is_tracked, m.competitor_id
          ) f
          LEFT JOIN competitors k ON k.id = f.competitor_id
         WHERE x.extraction_state = 'extracted' AND EXISTS (SELECT 1 FROM fig_run_brand b WHERE b.run_id = x.run_id)
         GROUP BY 1, 2) s
 WHERE t.run_id = s.run_id AND t.brand = s.brand;

UPDATE fig_month_engine t SET position_sq = s.psq, sentiment_sq = s.ssq
  FROM (SELECT analysis_id, date_trunc('month', day)::date AS month, engine, sum(position_sq) AS psq, sum(sentiment_sq) AS ssq
          FROM fig_run_engine GROUP BY 1, 2, 3) s
 WHERE t.analysis_id = s.analysis_id AND t.month = s.month AND t.engine = s.engine;
UPDATE fig_month_group t SET position_sq = s.psq, sentiment_sq = s.ssq
  FROM (SELECT analysis_id, date_trunc('month', day)::date AS month, group_key, sum(position_sq) AS psq, sum(sentiment_sq) AS ssq
          FROM fig_run_group GROUP BY 1, 2, 3) s
 WHERE t.analysis_id = s.analysis_id AND t.month = s.month AND t.group_key = s.group_key;
UPDATE fig_month_prompt t SET position_sq = s.psq, sentiment_sq = s.ssq
  FROM (SELECT date_trunc('month', day)::date AS month, prompt_id, engine, sum(position_sq) AS psq, sum(sentiment_sq) AS ssq
          FROM fig_run_prompt GROUP BY 1, 2, 3) s
 WHERE t.prompt_id = s.prompt_id AND t.month = s.month AND t.engine = s.engine;
UPDATE fig_month_brand t SET position_sq = s.psq
  FROM (SELECT analysis_id, date_trunc('month', day)::date AS month, brand, sum(position_sq) AS psq
          FROM fig_run_brand GROUP BY 1, 2, 3) s
 WHERE t.analysis_id = s.analysis_id AND t.month = s.month AND t.brand = s.brand;

INSERT INTO fig_run_prompts (run_id, analysis_id, day, digest, prompts)
SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date, s.digest, s.prompts
  FROM runs r CROSS JOIN LATERAL fig_prompt_set(r.id) s
 WHERE EXISTS (SELECT 1 FROM fig_run_engine e WHERE e.run_id = r.id);

-- ---------------------------------------------------------------------------------------------------
-- Writing the aggregates: the same functions as 003 and 005, with the squares and the prompt sets.

CREATE OR REPLACE FUNCTION fig_apply_months(p_run uuid, p_sign integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fig_month_engine AS t
  SELECT analysis_id, date_trunc('month', day)::date, engine, p_sign * expected, p_sign * collected, p_sign * failed,
         p_sign * answers, p_sign * extracted, p_sign * mentioned, p_sign * tracked_mentions, p_sign * brand_mentions,
         p_sign * position_sum, p_sign * position_n, p_sign * sentiment_sum, p_sign * sentiment_n,
         p_sign * citations, p_sign * owned_citations, p_sign * position_sq, p_sign * sentiment_sq
    FROM fig_run_engine WHERE run_id = p_run
  ON CONFLICT (analysis_id, month, engine) DO UPDATE SET
    expected = t.expected + excluded.expected, collected = t.collected + excluded.collected, failed = t.failed + excluded.failed,
    answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
    tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
    position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
    sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
    citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations,
    position_sq = t.position_sq + excluded.position_sq, sentiment_sq = t.sentiment_sq + excluded.sentiment_sq;

  INSERT INTO fig_month_recipe AS t
  SELECT analysis_id, date_trunc('month', day)::date, recipe, p_sign * count(*)::int
    FROM fig_run_engine WHERE run_id = p_run AND recipe IS NOT NULL GROUP BY 1, 2, 3
  ON CONFLICT (analysis_id, month, recipe) DO UPDATE SET n = t.n + excluded.n;

  INSERT INTO fig_month_group AS t
  SELECT analysis_id, date_trunc('month', day)::date, group_key,
         p_sign * answers, p_sign * extracted, p_sign * mentioned, p_sign * tracked_mentions, p_sign * brand_mentions,
         p_sign * position_sum, p_sign * position_n, p_sign * sentiment_sum, p_sign * sentiment_n,
         p_sign * citations, p_sign * owned_citations, p_sign * position_sq, p_sign * sentiment_sq
    FROM fig_run_group WHERE run_id = p_run
  ON CONFLICT (analysis_id, month, group_key) DO UPDATE SET
    answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
    tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
    position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
    sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
    citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations,
    position_sq = t.position_sq + excluded.position_sq, sentiment_sq = t.sentiment_sq + excluded.sentiment_sq;

  INSERT INTO fig_month_prompt AS t
  SELECT analysis_id, date_trunc('month', day)::date, prompt_id, engine,
         p_sign * answers, p_sign * extracted, p_sign * mentioned, p_sign * tracked_mentions, p_sign * brand_mentions,
         p_sign * position_sum, p_sign * position_n, p_sign * sentiment_sum, p_sign * sentiment_n,
         p_sign * citations, p_sign * owned_citations, p_sign * position_sq, p_sign * sentiment_sq
    FROM fig_run_prompt WHERE run_id = p_run
  ON CONFLICT (prompt_id, month, engine) DO UPDATE SET
    answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
    tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
    position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
    sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
    citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations,
    position_sq = t.position_sq + excluded.position_sq, sentiment_sq = t.sentiment_sq + excluded.sentiment_sq;

  INSERT INTO fig_month_brand AS t
  SELECT analysis_id, date_trunc('month', day)::date, brand, is_tracked, competitor_id,
         p_sign * mentions, p_sign * answers, p_sign * position_sum, p_sign * position_n, p_sign * position_sq
    FROM fig_run_brand WHERE run_id = p_run
  ON CONFLICT (analysis_id, month, brand) DO UPDATE SET
    is_tracked = excluded.is_tracked, competitor_id = excluded.competitor_id,
    mentions = t.mentions + excluded.mentions, answers = t.answers + excluded.answers,
    position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n, position_sq = t.position_sq + excluded.position_sq;

  INSERT INTO fig_month_domain AS t
  SELECT analysis_id, date_trunc('month', day)::date, domain, p_sign * citations, p_sign * answers
    FROM fig_run_domain WHERE run_id = p_run
  ON CONFLICT (analysis_id, month, domain) DO UPDATE SET
    citations = t.citations + excluded.citations, answers = t.answers + excluded.answers;
END
$$;

CREATE OR REPLACE FUNCTION finish_run_extraction(p_run uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM fig_run_engine WHERE run_id = p_run) THEN
    PERFORM fig_apply_months(p_run, -1);
    DELETE FROM fig_run_engine WHERE run_id = p_run;
    DELETE FROM fig_run_group WHERE run_id = p_run;
    DELETE FROM fig_run_prompt WHERE run_id = p_run;
    DELETE FROM fig_run_brand WHERE run_id = p_run;
    DELETE FROM fig_run_domain WHERE run_id = p_run;
  END IF;
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
  -- used: grouped by name inside the answer, so `answers` counts an answer once (issue 22, found by
  -- test/property/data-contract.test.ts).
  INSERT INTO fig_run_brand (run_id, analysis_id, day, brand, is_tracked, competitor_id, mentions, answers, position_sum, position_n, position_sq)
  SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date, f.brand,
         bool_or(f.is_tracked), (array_agg(f.competitor_id))[1], sum(f.n)::int, count(*)::int,
         sum(f.first_pos)::bigint, count(*)::int, sum(f.first_pos::bigint * f.first_pos)::bigint
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
   GROUP BY r.id, r.analysis_id, r.started_at, f.brand;

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

  PERFORM fig_apply_months(p_run, 1);
END
$$;

CREATE OR REPLACE FUNCTION fig_move_prompt(p_prompt uuid, p_from uuid, p_to uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  nil CONSTANT uuid := '00000000-0000-0000-0000-000000000000';
  k integer;
  grp uuid;
BEGIN
  FOR k, grp IN VALUES (-1, coalesce(p_from, nil)), (1, coalesce(p_to, nil)) LOOP
    INSERT INTO fig_run_group AS t
    SELECT run_id, analysis_id, day, grp,
           k * sum(answers), k * sum(extracted), k * sum(mentioned), k * sum(tracked_mentions),
           k * sum(brand_mentions), k * sum(position_sum), k * sum(position_n), k * sum(sentiment_sum),
           k * sum(sentiment_n), k * sum(citations), k * sum(owned_citations), k * sum(position_sq), k * sum(sentiment_sq)
      FROM fig_run_prompt WHERE prompt_id = p_prompt
     GROUP BY run_id, analysis_id, day
    ON CONFLICT (run_id, group_key) DO UPDATE SET
      answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
      tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
      position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
      sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
      citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations,
      position_sq = t.position_sq + excluded.position_sq, sentiment_sq = t.sentiment_sq + excluded.sentiment_sq;

    INSERT INTO fig_month_group AS t
    SELECT analysis_id, month, grp,
           k * sum(answers), k * sum(extracted), k * sum(mentioned), k * sum(tracked_mentions),
           k * sum(brand_mentions), k * sum(position_sum), k * sum(position_n), k * sum(sentiment_sum),
           k * sum(sentiment_n), k * sum(citations), k * sum(owned_citations), k * sum(position_sq), k * sum(sentiment_sq)
      FROM fig_month_prompt WHERE prompt_id = p_prompt
     GROUP BY analysis_id, month
    ON CONFLICT (analysis_id, month, group_key) DO UPDATE SET
      answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
      tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
      position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
      sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
      citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations,
      position_sq = t.position_sq + excluded.position_sq, sentiment_sq = t.sentiment_sq + excluded.sentiment_sq;
  END LOOP;
END $$;
-- ---------------------------------------------------------------------------------------------------
-- Comparable periods (context.comparison.changes).

-- Extraction recipes served by the extracted runs of one period (0 the window, 1 its comparison), sorted.
-- PL/pgSQL, as the reads of 006: its plan is kept per backend (an SQL function called from PL/pgSQL is
-- planned again on every call).
CREATE FUNCTION fig_recipes(p_analysis uuid, w fig_window, p_period integer) RETURNS text[] LANGUAGE plpgsql STABLE AS $$
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
CREATE FUNCTION fig_prompts_changed(p_analysis uuid, w fig_window) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
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

-- ---------------------------------------------------------------------------------------------------
-- The figure reads, returning the squares (bodies as in 006 otherwise).

CREATE OR REPLACE FUNCTION fig_common(p_analysis uuid, w fig_window) RETURNS json LANGUAGE plpgsql STABLE AS $$
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
               sum(f.owned_citations)::float8 AS owned_citations, sum(f.position_sq)::float8 AS position_sq, sum(f.sentiment_sq)::float8 AS sentiment_sq
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
    'recipes', fig_recipes(p_analysis, w, 0),
    'previous_recipes', CASE WHEN w.prev_kind IS NOT NULL THEN fig_recipes(p_analysis, w, 1) END,
    'prompts_changed', fig_prompts_changed(p_analysis, w));
END $$;

CREATE OR REPLACE FUNCTION api_fig_competitors(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
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
         GROUP BY s.period, f.brand) x),
    'configured', (SELECT coalesce(json_agg(json_build_object('id', c.id, 'name', c.name, 'domain', c.domain) ORDER BY c.name, c.id), '[]')
                     FROM competitors c WHERE c.analysis_id = p_analysis));
END $$;

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
    'rows', (SELECT json_agg(x) FROM (
        SELECT s.period, f.prompt_id, f.engine, sum(f.answers)::float8 AS answers, sum(f.extracted)::float8 AS extracted,
               sum(f.mentioned)::float8 AS mentioned, sum(f.tracked_mentions)::float8 AS tracked_mentions,
               sum(f.brand_mentions)::float8 AS brand_mentions, sum(f.position_sum)::float8 AS position_sum,
               sum(f.position_n)::float8 AS position_n, sum(f.sentiment_sum)::float8 AS sentiment_sum,
               sum(f.sentiment_n)::float8 AS sentiment_n, sum(f.citations)::float8 AS citations,
               sum(f.owned_citations)::float8 AS owned_citations, sum(f.position_sq)::float8 AS position_sq, sum(f.sentiment_sq)::float8 AS sentiment_sq
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

CREATE OR REPLACE FUNCTION api_fig_series(p_analysis uuid, p_window text, p_from date, p_to date) RETURNS json
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
               s.brand_mentions, s.position_sum, s.position_n, s.sentiment_sum, s.sentiment_n, s.citations, s.owned_citations, s.position_sq, s.sentiment_sq
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
                   coalesce(sum(f.owned_citations), 0)::float8 AS owned_citations,
                   coalesce(sum(f.position_sq), 0)::float8 AS position_sq, coalesce(sum(f.sentiment_sq), 0)::float8 AS sentiment_sq
              FROM fig_run_engine f WHERE f.run_id = d.id) s ON true
          LEFT JOIN LATERAL (
            SELECT sum(e.collected)::integer AS pending FROM run_engines e WHERE e.run_id = d.id AND d.state <> 'finished') u ON true
         WHERE w.cur_kind IS NOT NULL) x));
END $$;

-- ---------------------------------------------------------------------------------------------------
-- Read 13: what changed between a finished run and the finished run before it (by start, then id).
-- NULL when the run is not the analysis's or is not finished (nothing extracted to compare). Brands and
-- domains that entered or left: at most 50 of each (most mentioned / cited first, then by name in code
-- point order) and their totals; and the counts behind the tracked brand's visibility per engine.
CREATE FUNCTION api_run_changes(p_analysis uuid, p_run uuid) RETURNS json LANGUAGE plpgsql STABLE AS $$
DECLARE
  cur runs%ROWTYPE;
  prev_id uuid;
  prev_started timestamptz;
BEGIN
  SELECT * INTO cur FROM runs r WHERE r.id = p_run AND r.analysis_id = p_analysis;
  IF cur.id IS NULL OR cur.state <> 'finished' THEN
    RETURN NULL;
  END IF;
  SELECT r.id, r.started_at INTO prev_id, prev_started
    FROM runs r
   WHERE r.analysis_id = p_analysis AND r.state = 'finished' AND r.started_at <= cur.started_at
     AND (r.started_at < cur.started_at OR r.id < cur.id)
   ORDER BY r.started_at DESC, r.id DESC
   LIMIT 1;
  RETURN json_build_object(
    'previous_run', CASE WHEN prev_id IS NOT NULL THEN json_build_object('id', prev_id, 'started_at', prev_started) END,
    'engines', (SELECT json_agg(json_build_object('run', CASE WHEN e.run_id = p_run THEN 0 ELSE 1 END, 'engine', e.engine,
                                                  'name', coalesce(n.name, e.engine), 'mentioned', e.mentioned, 'extracted', e.extracted))
                  FROM fig_run_engine e LEFT JOIN engines n ON n.key = e.engine
                 WHERE e.run_id = p_run OR e.run_id = prev_id),
    'brands_entered', (SELECT coalesce(json_agg(x.brand ORDER BY x.mentions DESC, x.brand COLLATE "C"), '[]') FROM (
        SELECT c.brand, c.mentions FROM fig_run_brand c
         WHERE c.run_id = p_run AND prev_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM fig_run_brand p WHERE p.run_id = prev_id AND p.brand = c.brand)
         ORDER BY c.mentions DESC, c.brand COLLATE "C" LIMIT 50) x),
    'brands_entered_total', (SELECT count(*) FROM fig_run_brand c
         WHERE c.run_id = p_run AND prev_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM fig_run_brand p WHERE p.run_id = prev_id AND p.brand = c.brand)),
    'brands_left', (SELECT coalesce(json_agg(x.brand ORDER BY x.mentions DESC, x.brand COLLATE "C"), '[]') FROM (
        SELECT p.brand, p.mentions FROM fig_run_brand p
         WHERE p.run_id = prev_id
           AND NOT EXISTS (SELECT 1 FROM fig_run_brand c WHERE c.run_id = p_run AND c.brand = p.brand)
         ORDER BY p.mentions DESC, p.brand COLLATE "C" LIMIT 50) x),
    'brands_left_total', (SELECT count(*) FROM fig_run_brand p
         WHERE p.run_id = prev_id
           AND NOT EXISTS (SELECT 1 FROM fig_run_brand c WHERE c.run_id = p_run AND c.brand = p.brand)),
    'domains_entered', (SELECT coalesce(json_agg(x.domain ORDER BY x.citations DESC, x.domain COLLATE "C"), '[]') FROM (
        SELECT c.domain, c.citations FROM fig_run_domain c
         WHERE c.run_id = p_run AND prev_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM fig_run_domain p WHERE p.run_id = prev_id AND p.domain = c.domain)
         ORDER BY c.citations DESC, c.domain COLLATE "C" LIMIT 50) x),
    'domains_entered_total', (SELECT count(*) FROM fig_run_domain c
         WHERE c.run_id = p_run AND prev_id IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM fig_run_domain p WHERE p.run_id = prev_id AND p.domain = c.domain)),
    'domains_left', (SELECT coalesce(json_agg(x.domain ORDER BY x.citations DESC, x.domain COLLATE "C"), '[]') FROM (
        SELECT p.domain, p.citations FROM fig_run_domain p
         WHERE p.run_id = prev_id
           AND NOT EXISTS (SELECT 1 FROM fig_run_domain c WHERE c.run_id = p_run AND c.domain = p.domain)
         ORDER BY p.citations DESC, p.domain COLLATE "C" LIMIT 50) x),
    'domains_left_total', (SELECT count(*) FROM fig_run_domain p
         WHERE p.run_id = prev_id
           AND NOT EXISTS (SELECT 1 FROM fig_run_domain c WHERE c.run_id = p_run AND c.domain = p.domain)));
END $$;

-- Runs aggregated before this migration were summed per spelling of a brand inside an answer (an answer
-- naming a competitor twice, or the tracked brand under another spelling, counted twice or not at all):
-- each aggregated run is extracted again with the definitions above, so the stored figures equal their
-- recomputation from the raw rows (finish_run_extraction replaces a run's rows and moves its months).
SELECT finish_run_extraction(run_id) FROM (SELECT DISTINCT run_id FROM fig_run_engine ORDER BY run_id) done;
