-- Finishing many runs in one call.
--
-- finish_run_extraction settles every month its run is in from all the run rows of that month (016): right
-- for the one run a day a pipeline finishes, but a load of many runs (a backfill, answers restored, a
-- re-extraction of a year, a seed) that calls it once per run settles each month once per run in it, so
-- the load's cost grows with the square of a month's runs. finish_runs_extraction(runs uuid[]) writes each
-- run's rows as finish_run_extraction does, then settles each month of each analysis once.
-- finish_run_extraction(run) is now that call with one run: both write the same rows.
--
-- Locks: every analysis of the runs, in one order (the lock's key, then the id), before any aggregate row
-- is read, so two loads that share analyses wait for each other rather than deadlock, and each, under
-- READ COMMITTED, sees what the other committed, as a single run's finish does (016).

-- A run's own aggregate rows, recomputed from its answers, mentions and citations (the body of 018's
-- finish_run_extraction); returns the months its rows were in and are in now, which the caller settles.
-- The caller holds the lock of the run's analysis.
CREATE FUNCTION fig_write_run_rows(p_run uuid) RETURNS date[] LANGUAGE plpgsql AS $$
DECLARE
  v_months date[];
BEGIN
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

  RETURN v_months;
END
$$;

-- Finishes the runs given (unknown ids are skipped, as a single finish skips one): every run's rows,
-- then each month of each analysis they are in, once.
CREATE FUNCTION finish_runs_extraction(p_runs uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_analyses uuid[];
  v_analysis uuid;
  v_run uuid;
  v_months date[];
  m date;
BEGIN
  SELECT array_agg(d.id ORDER BY hashtext(d.id::text), d.id) INTO v_analyses
    FROM (SELECT DISTINCT r.analysis_id AS id FROM runs r WHERE r.id = ANY (p_runs)) d;
  FOREACH v_analysis IN ARRAY coalesce(v_analyses, '{}') LOOP
    PERFORM fig_lock_analysis(v_analysis);
  END LOOP;
  FOREACH v_analysis IN ARRAY coalesce(v_analyses, '{}') LOOP
    v_months := '{}';
    FOR v_run IN SELECT r.id FROM runs r WHERE r.id = ANY (p_runs) AND r.analysis_id = v_analysis ORDER BY r.started_at, r.id LOOP
      v_months := v_months || fig_write_run_rows(v_run);
    END LOOP;
    FOR m IN SELECT DISTINCT u.month FROM unnest(v_months) AS u(month) ORDER BY 1 LOOP
      PERFORM fig_settle_month(v_analysis, m);
      PERFORM fig_settle_prompt_brands(v_analysis, m);
    END LOOP;
  END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION finish_run_extraction(p_run uuid) RETURNS void LANGUAGE sql AS $$
  SELECT finish_runs_extraction(ARRAY[p_run])
$$;
