-- An answer comes from one of its run's engines, and a finished run stays finished.
--
-- answers (run_id, engine) must name a row of run_engines: a foreign key, refused with SQLSTATE 23503 and
-- the constraint's name. Without it an answer of an engine the run never declared counted in every figure
-- read from the answers (groups, prompts, segments, competitors, sources) but not in the engines' figures,
-- which finish_run_extraction writes per run_engines row: the parts of a figure stopped adding up to the
-- whole. The key also refuses deleting a run_engines row that answers still name. NOT VALID: rows written
-- before this migration are not checked, as in 023 (ALTER TABLE answers VALIDATE CONSTRAINT
-- answers_of_run_engines checks them, and fails naming a row that breaks the rule).
--
-- A finished run's state cannot change (SQLSTATE 23514, constraint runs_stay_finished): the reads count
-- a finished run from its aggregate rows and any other from its own volumes, so a finished run moved to
-- another state would be counted twice, and finish_run_extraction refuses to finish it again. Finishing a
-- finished run again (after correcting its answers or its start) stays allowed. Writers that disable
-- triggers (data contract) bypass both rules; for a run such a writer moved out of 'finished',
-- fig_drop_run_rows removes the aggregate rows it still holds (verify-aggregates --repair calls it).

ALTER TABLE answers ADD CONSTRAINT answers_of_run_engines FOREIGN KEY (run_id, engine) REFERENCES run_engines (run_id, engine) NOT VALID;

CREATE FUNCTION runs_stay_finished() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'run %: a finished run stays finished (asked to become %)', OLD.id, NEW.state
    USING ERRCODE = 'check_violation', CONSTRAINT = 'runs_stay_finished',
          HINT = 'To correct a finished run, change its answers, then call finish_run_extraction(run) again.';
END $$;

CREATE TRIGGER runs_stay_finished BEFORE UPDATE OF state ON runs
  FOR EACH ROW WHEN (OLD.state = 'finished' AND NEW.state IS DISTINCT FROM 'finished') EXECUTE FUNCTION runs_stay_finished();

-- The aggregate rows of runs that are not finished, removed, and the months they were in settled again
-- from the run rows left. The runs' analyses are locked first, in finish_runs_extraction's order, so a
-- concurrent finish waits rather than deadlocks. Refuses a finished run (its rows are what the reads
-- count), naming it; nothing is written then.
CREATE FUNCTION fig_drop_run_rows(p_runs uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_finished uuid;
  v_analysis uuid;
  v_months date[];
  m date;
BEGIN
  SELECT r.id INTO v_finished FROM runs r WHERE r.id = ANY (p_runs) AND r.state = 'finished' LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'fig_drop_run_rows: run % is finished: its aggregate rows are the ones the reads count', v_finished
      USING ERRCODE = 'check_violation';
  END IF;
  FOR v_analysis IN SELECT d.id FROM (SELECT DISTINCT r.analysis_id AS id FROM runs r WHERE r.id = ANY (p_runs)) d
                     ORDER BY hashtext(d.id::text), d.id LOOP
    PERFORM fig_lock_analysis(v_analysis);
  END LOOP;
  FOR v_analysis IN SELECT DISTINCT r.analysis_id FROM runs r WHERE r.id = ANY (p_runs) LOOP
    SELECT array_agg(DISTINCT date_trunc('month', x.day)::date) INTO v_months
      FROM (SELECT e.day FROM fig_run_engine e WHERE e.run_id = ANY (p_runs) AND e.analysis_id = v_analysis
            UNION ALL SELECT g.day FROM fig_run_group g WHERE g.run_id = ANY (p_runs) AND g.analysis_id = v_analysis
            UNION ALL SELECT q.day FROM fig_run_prompt q WHERE q.run_id = ANY (p_runs) AND q.analysis_id = v_analysis
            UNION ALL SELECT b.day FROM fig_run_brand b WHERE b.run_id = ANY (p_runs) AND b.analysis_id = v_analysis
            UNION ALL SELECT b.day FROM fig_run_prompt_brand b WHERE b.run_id = ANY (p_runs) AND b.analysis_id = v_analysis
            UNION ALL SELECT d.day FROM fig_run_domain d WHERE d.run_id = ANY (p_runs) AND d.analysis_id = v_analysis) x;
    DELETE FROM fig_run_engine WHERE run_id = ANY (p_runs) AND analysis_id = v_analysis;
    DELETE FROM fig_run_group WHERE run_id = ANY (p_runs) AND analysis_id = v_analysis;
    DELETE FROM fig_run_prompt WHERE run_id = ANY (p_runs) AND analysis_id = v_analysis;
    DELETE FROM fig_run_brand WHERE run_id = ANY (p_runs) AND analysis_id = v_analysis;
    DELETE FROM fig_run_prompt_brand WHERE run_id = ANY (p_runs) AND analysis_id = v_analysis;
    DELETE FROM fig_run_domain WHERE run_id = ANY (p_runs) AND analysis_id = v_analysis;
    DELETE FROM fig_run_prompts WHERE run_id = ANY (p_runs) AND analysis_id = v_analysis;
    FOR m IN SELECT u.month FROM unnest(coalesce(v_months, '{}')) u (month) ORDER BY 1 LOOP
      PERFORM fig_settle_month(v_analysis, m);
      PERFORM fig_settle_prompt_brands(v_analysis, m);
    END LOOP;
  END LOOP;
END
$$;
