-- Called by the collection pipeline when a run's extraction finishes (see issue 3: aggregates).
CREATE FUNCTION finish_run_extraction(p_run uuid) RETURNS void LANGUAGE sql AS $$ SELECT $$;
