-- What the figure aggregates hold for intervals on means and comparable periods, and the extraction that
-- writes them.
--
-- 1. Sums of squares. A mean's Student t interval and the Welch interval of a change between two means
--    need, besides the sum and the count, the sum of the squared values. Every aggregate that sums a
--    mean's values sums their squares too (position_sq: the squares of the tracked brand's first
--    position per answer naming it, or of a brand's own in fig_*_brand; sentiment_sq: the squares of the
--    scored sentiments of the tracked brand's mentions), so a read stays O(months + days). Rows already
--    stored are filled from the raw mentions below (month rows as the sum of their run rows).
--
-- 2. The prompts a run collected answers for (fig_run_prompts): the sorted set and its digest, so "the set
--    of prompts with collected answers differs between a window and its comparison period" costs a row
--    per run of the two periods, and unnesting a set only once per distinct digest.
--
-- 3. finish_run_extraction (called by the pipeline) and fig_move_prompt (by the prompts_group_moved
--    trigger) write both, and count a brand once per answer whatever spellings the answer used; every run
--    already aggregated is extracted again with them.

ALTER TABLE fig_run_engine ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_month_engine ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_run_group ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_month_group ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_run_prompt ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_month_prompt ADD COLUMN position_sq bigint NOT NULL DEFAULT 0, ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
ALTER TABLE fig_run_brand ADD COLUMN position_sq bigint NOT NULL DEFAULT 0;
ALTER TABLE fig_month_brand ADD COLUMN position_sq bigint NOT NULL DEFAULT 0;

-- list_group_prompts reads a page of prompts over the edge days from this index alone: it covers the
-- squares too.
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
-- Writing the aggregates, squares and prompt sets included.

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
  -- used: grouped by name inside the answer, so `answers` counts an answer once.
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

-- Every run already aggregated is extracted again with the definitions above, so its stored figures equal
-- their recomputation from the raw rows (finish_run_extraction replaces a run's rows and moves its months).
SELECT finish_run_extraction(run_id) FROM (SELECT DISTINCT run_id FROM fig_run_engine ORDER BY run_id) done;
