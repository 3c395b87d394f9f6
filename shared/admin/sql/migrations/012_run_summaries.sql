-- One summary row per extracted run. fig_run_prompts (the prompts a run collected answers for, and their
-- digest) also holds what the run's per-engine rows sum to: its recipes and their digest, how many rows,
-- each measure. A trigger copies them when finish_run_extraction writes the row, which it does after the
-- per-engine rows (both are deleted together when a run is extracted again), so they cannot drift apart.
-- The time series reads a day's figures from its run's row, and the comparison of a window with the
-- period before it reads each run's prompt and recipe digests from the covering index below
-- (shared/admin/sql/functions/figures.sql). Every finished run has its row.

ALTER TABLE fig_run_prompts
  ADD COLUMN recipes text[] NOT NULL DEFAULT '{}',
  ADD COLUMN recipes_digest text NOT NULL DEFAULT md5('{}'),
  ADD COLUMN engine_rows integer NOT NULL DEFAULT 0,
  ADD COLUMN answers bigint NOT NULL DEFAULT 0,
  ADD COLUMN extracted bigint NOT NULL DEFAULT 0,
  ADD COLUMN mentioned bigint NOT NULL DEFAULT 0,
  ADD COLUMN tracked_mentions bigint NOT NULL DEFAULT 0,
  ADD COLUMN brand_mentions bigint NOT NULL DEFAULT 0,
  ADD COLUMN position_sum numeric NOT NULL DEFAULT 0,
  ADD COLUMN position_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN sentiment_sum numeric NOT NULL DEFAULT 0,
  ADD COLUMN sentiment_n bigint NOT NULL DEFAULT 0,
  ADD COLUMN citations bigint NOT NULL DEFAULT 0,
  ADD COLUMN owned_citations bigint NOT NULL DEFAULT 0,
  ADD COLUMN position_sq numeric NOT NULL DEFAULT 0,
  ADD COLUMN sentiment_sq numeric NOT NULL DEFAULT 0;
-- A period's prompt and recipe digests are read from this index alone. The recipes themselves stay in the
-- table (read once per distinct set): a run may have as many recipes as engines, each up to 100
-- characters, more than an index entry may hold.
DROP INDEX fig_run_prompts_day;
CREATE INDEX fig_run_prompts_day ON fig_run_prompts (analysis_id, day) INCLUDE (run_id, digest, recipes_digest);

-- What a run's per-engine rows sum to: its recipes (sorted) and their digest, how many rows, and each
-- measure summed over its engines (the types sum() gives, so a day of the series reads what summing its
-- engines would give).
CREATE FUNCTION fig_run_summary(
  p_run uuid, OUT recipes text[], OUT recipes_digest text, OUT engine_rows integer,
  OUT answers bigint, OUT extracted bigint, OUT mentioned bigint, OUT tracked_mentions bigint, OUT brand_mentions bigint,
  OUT position_sum numeric, OUT position_n bigint, OUT sentiment_sum numeric, OUT sentiment_n bigint,
  OUT citations bigint, OUT owned_citations bigint, OUT position_sq numeric, OUT sentiment_sq numeric)
LANGUAGE sql STABLE AS $$
  SELECT x.recipes, md5(x.recipes::text), x.n, x.answers, x.extracted, x.mentioned, x.tracked_mentions, x.brand_mentions,
         x.position_sum, x.position_n, x.sentiment_sum, x.sentiment_n, x.citations, x.owned_citations, x.position_sq,
         x.sentiment_sq
    FROM (SELECT coalesce(array_agg(DISTINCT e.recipe ORDER BY e.recipe) FILTER (WHERE e.recipe IS NOT NULL), '{}') AS recipes,
                 count(*)::integer AS n,
                 coalesce(sum(e.answers), 0) AS answers,
                 coalesce(sum(e.extracted), 0) AS extracted,
                 coalesce(sum(e.mentioned), 0) AS mentioned,
                 coalesce(sum(e.tracked_mentions), 0) AS tracked_mentions,
                 coalesce(sum(e.brand_mentions), 0) AS brand_mentions,
                 coalesce(sum(e.position_sum), 0) AS position_sum,
                 coalesce(sum(e.position_n), 0) AS position_n,
                 coalesce(sum(e.sentiment_sum), 0) AS sentiment_sum,
                 coalesce(sum(e.sentiment_n), 0) AS sentiment_n,
                 coalesce(sum(e.citations), 0) AS citations,
                 coalesce(sum(e.owned_citations), 0) AS owned_citations,
                 coalesce(sum(e.position_sq), 0) AS position_sq,
                 coalesce(sum(e.sentiment_sq), 0) AS sentiment_sq
            FROM fig_run_engine e WHERE e.run_id = p_run) x
$$;

-- finish_run_extraction writes a run's per-engine rows, then its fig_run_prompts row (both are deleted
-- together when the run is extracted again): the row takes the run's summary as it is written.
CREATE FUNCTION fig_run_prompts_summary() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.* INTO NEW.recipes, NEW.recipes_digest, NEW.engine_rows,
                  NEW.answers, NEW.extracted, NEW.mentioned, NEW.tracked_mentions, NEW.brand_mentions,
                  NEW.position_sum, NEW.position_n, NEW.sentiment_sum, NEW.sentiment_n,
                  NEW.citations, NEW.owned_citations, NEW.position_sq, NEW.sentiment_sq
    FROM fig_run_summary(NEW.run_id) s;
  RETURN NEW;
END $$;
CREATE TRIGGER fig_run_prompts_summary BEFORE INSERT ON fig_run_prompts
  FOR EACH ROW EXECUTE FUNCTION fig_run_prompts_summary();

UPDATE fig_run_prompts f
   SET (recipes, recipes_digest, engine_rows,
        answers, extracted, mentioned, tracked_mentions, brand_mentions,
        position_sum, position_n, sentiment_sum, sentiment_n,
        citations, owned_citations, position_sq, sentiment_sq) = (SELECT s.* FROM fig_run_summary(f.run_id) s);

-- Every finished run has its row: finish_run_extraction writes one for each run it extracts, and this
-- gives one to each run finished without any per-engine row.
INSERT INTO fig_run_prompts (run_id, analysis_id, day, digest, prompts)
SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date, s.digest, s.prompts
  FROM runs r CROSS JOIN LATERAL fig_prompt_set(r.id) s
 WHERE r.state = 'finished' AND NOT EXISTS (SELECT 1 FROM fig_run_prompts f WHERE f.run_id = r.id);
