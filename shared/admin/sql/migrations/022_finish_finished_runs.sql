-- Finishing only what is finished.
--
-- finish_runs_extraction (and finish_run_extraction, which calls it with one run) refuses a run that is not
-- in state 'finished', and an id that names no run: the reads count a run that is not finished from its
-- collected volumes (run_engines), so aggregate rows of such a run would count its answers a second time.
-- The data contract finishes a run by setting its state and calling the function in one transaction; a
-- bulk call names the finished runs (`WHERE state = 'finished'`). Nothing is written when a run is refused:
-- the error names the first one and its state (SQLSTATE 23514, check_violation).

CREATE OR REPLACE FUNCTION finish_runs_extraction(p_runs uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_analyses uuid[];
  v_analysis uuid;
  v_run uuid;
  v_months date[];
  m date;
  v_refused record;
BEGIN
  SELECT u.id, r.state INTO v_refused
    FROM unnest(p_runs) u (id) LEFT JOIN runs r ON r.id = u.id
   WHERE r.id IS NULL OR r.state <> 'finished'
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'finish_runs_extraction: run % is %, not finished', coalesce(v_refused.id::text, 'NULL'),
      coalesce(v_refused.state, 'not a run')
      USING ERRCODE = 'check_violation',
            HINT = 'Set runs.state = ''finished'' (and finished_at) in the same transaction, then finish the run; name only finished runs.';
  END IF;
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
