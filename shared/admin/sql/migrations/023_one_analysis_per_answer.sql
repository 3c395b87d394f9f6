-- An answer and what it refers to belong to one analysis.
--
-- The store refuses (SQLSTATE 23514, check_violation, naming the row) an answer whose run or prompt
-- belongs to another analysis than the answer's own, and a mention attributed to a competitor of another
-- analysis than its answer's. Such rows are pipeline faults the figures cannot survive: a prompt of
-- another analysis leaves its answers out of the segment sums, and a foreign competitor's name would be
-- served under this analysis, outside what its keys may read. Checked once per statement over the rows it
-- wrote (transition tables), so a bulk load pays one join, not one probe per row. Rows written before this
-- migration are not checked; writers that disable triggers (data contract) are not checked either.

CREATE FUNCTION answers_of_one_analysis() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bad record;
BEGIN
  SELECT n.id, CASE WHEN r.analysis_id <> n.analysis_id THEN 'run' ELSE 'prompt' END AS part INTO bad
    FROM new_rows n
    JOIN runs r ON r.id = n.run_id
    JOIN prompts p ON p.id = n.prompt_id
   WHERE r.analysis_id <> n.analysis_id OR p.analysis_id <> n.analysis_id
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'answer %: its % belongs to another analysis', bad.id, bad.part
      USING ERRCODE = 'check_violation', CONSTRAINT = 'answers_of_one_analysis';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER answers_of_one_analysis_insert AFTER INSERT ON answers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION answers_of_one_analysis();
CREATE TRIGGER answers_of_one_analysis_update AFTER UPDATE ON answers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION answers_of_one_analysis();

CREATE FUNCTION mentions_of_own_competitors() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bad record;
BEGIN
  SELECT n.answer_id, n.position INTO bad
    FROM new_rows n
    JOIN answers a ON a.id = n.answer_id
    JOIN competitors c ON c.id = n.competitor_id
   WHERE c.analysis_id <> a.analysis_id
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'mention % of answer %: its competitor belongs to another analysis', bad.position, bad.answer_id
      USING ERRCODE = 'check_violation', CONSTRAINT = 'mentions_of_own_competitors';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER mentions_of_own_competitors_insert AFTER INSERT ON mentions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mentions_of_own_competitors();
CREATE TRIGGER mentions_of_own_competitors_update AFTER UPDATE ON mentions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mentions_of_own_competitors();
