-- A finished run's aggregates that no retry or concurrent call can corrupt: two finish_run_extraction
-- calls for the same run at once (a pipeline retrying a finishing transaction it believes timed out), or
-- one call after another, leave the month rows what the raw rows make them. A month row kept by adding
-- and subtracting a run's rows could not promise that: two calls each take out what they saw before the
-- other committed.
--
-- 1. Finishes are serialized per analysis (so per run): the function first takes a transaction-level
--    advisory lock on the run's analysis (fig_lock_analysis). Under READ COMMITTED, the pipeline's level,
--    each later statement of the call sees what the call it waited for committed. Under REPEATABLE READ
--    or SERIALIZABLE the waiting call fails instead (a serialization failure, its snapshot predating the
--    other's commit), and the pipeline retries it. A prompt moving group (prompts_group_moved) takes the
--    same lock, since both write the group rows.
-- 2. A finish converges on the raw rows: it recomputes the run's rows from the answers, mentions and
--    citations (as before), then every month row of each month the run's rows were or are in
--    (fig_settle_month), as the sum of the run rows of that month (rows no run of the month has any more
--    are set to zero, as subtracting left them). Calling it again repairs whatever those months held.
--    Its cost grows with the runs of a month (about 30 daily runs) times the run's own rows; an analysis
--    holds at most 500 prompts (migration 014).
--
-- fig_apply_months (migrations 003, 011), the additive step, is no longer called by the function.
--
-- The month rows of every analysis are compared with, and repaired from, their run rows by
-- `npm run admin -- verify-aggregates [--repair]` (docs/administration.md).

-- The lock of an analysis's aggregates, held to the end of the transaction. Keyed by a hash of the id:
-- two analyses sharing a hash only wait for each other.
CREATE FUNCTION fig_lock_analysis(p_analysis uuid) RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtext('fig_aggregates'), hashtext(p_analysis::text))
$$;

-- The month rows of one analysis and month, set to the sums of the run rows of that month.
CREATE FUNCTION fig_settle_month(p_analysis uuid, p_month date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  last_day CONSTANT date := (p_month + interval '1 month')::date - 1;
BEGIN
  UPDATE fig_month_engine t SET expected = 0, collected = 0, failed = 0, answers = 0, extracted = 0, mentioned = 0,
       tracked_mentions = 0, brand_mentions = 0, position_sum = 0, position_n = 0, sentiment_sum = 0, sentiment_n = 0,
       citations = 0, owned_citations = 0, position_sq = 0, sentiment_sq = 0
   WHERE t.analysis_id = p_analysis AND t.month = p_month
     AND NOT EXISTS (SELECT 1 FROM fig_run_engine r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day AND r.engine = t.engine);
  INSERT INTO fig_month_engine AS t (analysis_id, month, engine, expected, collected, failed, answers, extracted,
    mentioned, tracked_mentions, brand_mentions, position_sum, position_n, sentiment_sum, sentiment_n, citations,
    owned_citations, position_sq, sentiment_sq)
  SELECT p_analysis, p_month, r.engine, sum(r.expected), sum(r.collected), sum(r.failed), sum(r.answers), sum(r.extracted),
         sum(r.mentioned), sum(r.tracked_mentions), sum(r.brand_mentions), sum(r.position_sum), sum(r.position_n), sum(r.sentiment_sum),
         sum(r.sentiment_n), sum(r.citations), sum(r.owned_citations), sum(r.position_sq), sum(r.sentiment_sq)
    FROM fig_run_engine r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day
   GROUP BY r.engine
  ON CONFLICT (analysis_id, month, engine) DO UPDATE SET
    expected = excluded.expected, collected = excluded.collected, failed = excluded.failed, answers = excluded.answers,
    extracted = excluded.extracted, mentioned = excluded.mentioned, tracked_mentions = excluded.tracked_mentions, brand_mentions = excluded.brand_mentions,
    position_sum = excluded.position_sum, position_n = excluded.position_n, sentiment_sum = excluded.sentiment_sum, sentiment_n = excluded.sentiment_n,
    citations = excluded.citations, owned_citations = excluded.owned_citations, position_sq = excluded.position_sq, sentiment_sq = excluded.sentiment_sq;

  UPDATE fig_month_recipe t SET n = 0
   WHERE t.analysis_id = p_analysis AND t.month = p_month
     AND NOT EXISTS (SELECT 1 FROM fig_run_engine r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day AND r.recipe = t.recipe);
  INSERT INTO fig_month_recipe AS t (analysis_id, month, recipe, n)
  SELECT p_analysis, p_month, r.recipe, count(*)
    FROM fig_run_engine r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day AND r.recipe IS NOT NULL
   GROUP BY r.recipe
  ON CONFLICT (analysis_id, month, recipe) DO UPDATE SET n = excluded.n;

  UPDATE fig_month_group t SET answers = 0, extracted = 0, mentioned = 0, tracked_mentions = 0, brand_mentions = 0, position_sum = 0,
       position_n = 0, sentiment_sum = 0, sentiment_n = 0, citations = 0, owned_citations = 0, position_sq = 0,
       sentiment_sq = 0
   WHERE t.analysis_id = p_analysis AND t.month = p_month
     AND NOT EXISTS (SELECT 1 FROM fig_run_group r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day AND r.group_key = t.group_key);
  INSERT INTO fig_month_group AS t (analysis_id, month, group_key, answers, extracted, mentioned, tracked_mentions, brand_mentions,
    position_sum, position_n, sentiment_sum, sentiment_n, citations, owned_citations, position_sq, sentiment_sq)
  SELECT p_analysis, p_month, r.group_key, sum(r.answers), sum(r.extracted), sum(r.mentioned), sum(r.tracked_mentions), sum(r.brand_mentions),
         sum(r.position_sum), sum(r.position_n), sum(r.sentiment_sum), sum(r.sentiment_n), sum(r.citations), sum(r.owned_citations),
         sum(r.position_sq), sum(r.sentiment_sq)
    FROM fig_run_group r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day
   GROUP BY r.group_key
  ON CONFLICT (analysis_id, month, group_key) DO UPDATE SET
    answers = excluded.answers, extracted = excluded.extracted, mentioned = excluded.mentioned, tracked_mentions = excluded.tracked_mentions,
    brand_mentions = excluded.brand_mentions, position_sum = excluded.position_sum, position_n = excluded.position_n, sentiment_sum = excluded.sentiment_sum,
    sentiment_n = excluded.sentiment_n, citations = excluded.citations, owned_citations = excluded.owned_citations, position_sq = excluded.position_sq,
    sentiment_sq = excluded.sentiment_sq;

  -- Question grain, through the analysis's prompts (at most 500): both tables are keyed by prompt first.
  UPDATE fig_month_prompt t SET answers = 0, extracted = 0, mentioned = 0, tracked_mentions = 0, brand_mentions = 0, position_sum = 0,
       position_n = 0, sentiment_sum = 0, sentiment_n = 0, citations = 0, owned_citations = 0, position_sq = 0,
       sentiment_sq = 0
   WHERE t.prompt_id IN (SELECT p.id FROM prompts p WHERE p.analysis_id = p_analysis) AND t.month = p_month
     AND NOT EXISTS (SELECT 1 FROM fig_run_prompt r
                      WHERE r.prompt_id = t.prompt_id AND r.day BETWEEN p_month AND last_day AND r.engine = t.engine AND r.analysis_id = p_analysis);
  INSERT INTO fig_month_prompt AS t (analysis_id, month, prompt_id, engine, answers, extracted, mentioned, tracked_mentions,
    brand_mentions, position_sum, position_n, sentiment_sum, sentiment_n, citations, owned_citations, position_sq,
    sentiment_sq)
  SELECT p_analysis, p_month, r.prompt_id, r.engine, sum(r.answers), sum(r.extracted), sum(r.mentioned), sum(r.tracked_mentions),
         sum(r.brand_mentions), sum(r.position_sum), sum(r.position_n), sum(r.sentiment_sum), sum(r.sentiment_n), sum(r.citations),
         sum(r.owned_citations), sum(r.position_sq), sum(r.sentiment_sq)
    FROM prompts p JOIN fig_run_prompt r ON r.prompt_id = p.id AND r.day BETWEEN p_month AND last_day AND r.analysis_id = p_analysis
   WHERE p.analysis_id = p_analysis
   GROUP BY r.prompt_id, r.engine
  ON CONFLICT (prompt_id, month, engine) DO UPDATE SET
    answers = excluded.answers, extracted = excluded.extracted, mentioned = excluded.mentioned, tracked_mentions = excluded.tracked_mentions,
    brand_mentions = excluded.brand_mentions, position_sum = excluded.position_sum, position_n = excluded.position_n, sentiment_sum = excluded.sentiment_sum,
    sentiment_n = excluded.sentiment_n, citations = excluded.citations, owned_citations = excluded.owned_citations, position_sq = excluded.position_sq,
    sentiment_sq = excluded.sentiment_sq;

  -- A brand's kind (tracked, direct competitor) as its latest run in the month names it.
  UPDATE fig_month_brand t SET mentions = 0, answers = 0, position_sum = 0, position_n = 0, position_sq = 0
   WHERE t.analysis_id = p_analysis AND t.month = p_month
     AND NOT EXISTS (SELECT 1 FROM fig_run_brand r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day AND r.brand = t.brand);
  INSERT INTO fig_month_brand AS t (analysis_id, month, brand, is_tracked, competitor_id, mentions, answers, position_sum,
    position_n, position_sq)
  SELECT p_analysis, p_month, r.brand, (array_agg(r.is_tracked ORDER BY r.day DESC, r.run_id DESC))[1],
         (array_agg(r.competitor_id ORDER BY r.day DESC, r.run_id DESC))[1],
         sum(r.mentions), sum(r.answers), sum(r.position_sum), sum(r.position_n), sum(r.position_sq)
    FROM fig_run_brand r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day
   GROUP BY r.brand
  ON CONFLICT (analysis_id, month, brand) DO UPDATE SET
    is_tracked = excluded.is_tracked, competitor_id = excluded.competitor_id, mentions = excluded.mentions, answers = excluded.answers,
    position_sum = excluded.position_sum, position_n = excluded.position_n, position_sq = excluded.position_sq;

  UPDATE fig_month_domain t SET citations = 0, answers = 0
   WHERE t.analysis_id = p_analysis AND t.month = p_month
     AND NOT EXISTS (SELECT 1 FROM fig_run_domain r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day AND r.domain = t.domain);
  INSERT INTO fig_month_domain AS t (analysis_id, month, domain, citations, answers)
  SELECT p_analysis, p_month, r.domain, sum(r.citations), sum(r.answers)
    FROM fig_run_domain r WHERE r.analysis_id = p_analysis AND r.day BETWEEN p_month AND last_day
   GROUP BY r.domain
  ON CONFLICT (analysis_id, month, domain) DO UPDATE SET citations = excluded.citations, answers = excluded.answers;
END $$;

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

  FOREACH m IN ARRAY v_months LOOP
    PERFORM fig_settle_month(v_analysis, m);
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION fig_move_prompt(p_prompt uuid, p_from uuid, p_to uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  nil CONSTANT uuid := '00000000-0000-0000-0000-000000000000';
  k integer;
  grp uuid;
BEGIN
  -- The finishes of the prompt's analysis recompute its month rows: a move waits for them, and they for it.
  PERFORM fig_lock_analysis((SELECT p.analysis_id FROM prompts p WHERE p.id = p_prompt));
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
