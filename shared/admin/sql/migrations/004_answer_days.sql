-- The number of answers per analysis and UTC day (answer_days), exact at every commit. The answer list
-- (list_answers) pages on answers_keyset; its `total`, the exact number of answers in a window of whole
-- UTC days, sums O(days) rows of this table instead of counting O(answers) index entries, which is too
-- slow on a long history (docs/performance.md).
--
-- Maintained by statement-level triggers over transition tables: one upsert per (analysis, day) touched by
-- a statement, whatever the number of rows. Rows whose count falls to zero are removed.

CREATE TABLE answer_days (
  analysis_id  uuid NOT NULL REFERENCES analyses (id),
  day          date NOT NULL,               -- UTC day of answers.captured_at
  answers      integer NOT NULL CHECK (answers > 0),
  PRIMARY KEY (analysis_id, day)
);

INSERT INTO answer_days (analysis_id, day, answers)
SELECT analysis_id, (captured_at AT TIME ZONE 'UTC')::date, count(*)
  FROM answers
 GROUP BY 1, 2;

CREATE FUNCTION answer_days_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO answer_days AS t (analysis_id, day, answers)
  SELECT analysis_id, (captured_at AT TIME ZONE 'UTC')::date, count(*) FROM new_rows GROUP BY 1, 2
  ON CONFLICT (analysis_id, day) DO UPDATE SET answers = t.answers + excluded.answers;
  RETURN NULL;
END $$;

-- Applies signed per-day deltas in one statement (one snapshot): add, decrease, or remove a day.
CREATE FUNCTION answer_days_apply(p_moved jsonb) RETURNS void LANGUAGE sql AS $$
  WITH moved AS (
    SELECT (d ->> 'a')::uuid AS analysis_id, (d ->> 'd')::date AS day, (d ->> 'n')::int AS n
      FROM jsonb_array_elements(p_moved) d
  ), added AS (
    INSERT INTO answer_days AS t (analysis_id, day, answers)
    SELECT analysis_id, day, n FROM moved WHERE n > 0
    ON CONFLICT (analysis_id, day) DO UPDATE SET answers = t.answers + excluded.answers
    RETURNING 1
  ), lowered AS (
    UPDATE answer_days t SET answers = t.answers + m.n
      FROM moved m
     WHERE m.n < 0 AND t.analysis_id = m.analysis_id AND t.day = m.day AND t.answers + m.n > 0
    RETURNING 1
  )
  DELETE FROM answer_days t USING moved m
   WHERE m.n < 0 AND t.analysis_id = m.analysis_id AND t.day = m.day AND t.answers + m.n <= 0
$$;

CREATE FUNCTION answer_days_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM answer_days_apply(coalesce(
    (SELECT jsonb_agg(jsonb_build_object('a', analysis_id, 'd', day, 'n', -n))
       FROM (SELECT analysis_id, (captured_at AT TIME ZONE 'UTC')::date AS day, count(*)::int AS n FROM old_rows GROUP BY 1, 2) o),
    '[]'));
  RETURN NULL;
END $$;

-- Extraction updates every answer of a run; only a change of analysis or captured day moves a count
-- (the deltas of unchanged rows cancel out and nothing is written).
CREATE FUNCTION answer_days_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM answer_days_apply(coalesce(
    (SELECT jsonb_agg(jsonb_build_object('a', analysis_id, 'd', day, 'n', n))
       FROM (SELECT analysis_id, day, sum(n)::int AS n
               FROM (SELECT analysis_id, (captured_at AT TIME ZONE 'UTC')::date AS day, -1 AS n FROM old_rows
                     UNION ALL
                     SELECT analysis_id, (captured_at AT TIME ZONE 'UTC')::date, 1 FROM new_rows) m
              GROUP BY 1, 2
             HAVING sum(n) <> 0) x),
    '[]'));
  RETURN NULL;
END $$;

CREATE FUNCTION answer_days_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM answer_days;
  RETURN NULL;
END $$;

CREATE TRIGGER answer_days_insert AFTER INSERT ON answers
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION answer_days_on_insert();
CREATE TRIGGER answer_days_delete AFTER DELETE ON answers
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION answer_days_on_delete();
CREATE TRIGGER answer_days_update AFTER UPDATE ON answers
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION answer_days_on_update();
CREATE TRIGGER answer_days_truncate AFTER TRUNCATE ON answers
  FOR EACH STATEMENT EXECUTE FUNCTION answer_days_on_truncate();
