-- Finishing only what is finished.
--
-- finish_runs_extraction (and finish_run_extraction, which calls it with one run) refuses a run that is not
-- in state 'finished', and an id that names no run: the reads count a run that is not finished from its
-- collected volumes (run_engines), so aggregate rows of such a run would count its answers a second time.
-- The data contract finishes a run by setting its state and calling the function in one transaction; a
-- bulk call names the finished runs (`WHERE state = 'finished'`). Nothing is written when a run is refused:
-- the error names the first one and its state (SQLSTATE 23514, check_violation).
--
-- The writing itself is 020's finish_runs_extraction, unchanged, renamed finish_runs_unchecked; the
-- function of that name now checks, then calls it.

ALTER FUNCTION finish_runs_extraction(uuid[]) RENAME TO finish_runs_unchecked;

CREATE FUNCTION finish_runs_extraction(p_runs uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
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
  PERFORM finish_runs_unchecked(p_runs);
END
$$;
