-- How many prompts each analysis and each of its groups holds, kept by the store on every write to
-- prompts, and the bound on prompts per analysis that lets the whole catalogue fit one reply.
--
-- 1. The counts. prompt_group_counts holds the prompts of each (analysis, group), the nil UUID standing for
--    the prompts in no group (as in the figure aggregates); prompt_totals holds each analysis's total.
--    Statement-level triggers over transition tables keep both in the writer's transaction (insert,
--    delete, any update that moves a prompt to another analysis or group, truncate), so a count is always
--    the one a scan would give. The group prompts read takes its `total` from the first, MCP's pages of
--    the catalogue from the second: O(1) instead of counting the group or the catalogue on every call.
--    Only these triggers write them (SECURITY DEFINER: the product's role needs no grant on them). A
--    writer that disables triggers (session_replication_role = replica) leaves them stale:
--    `npm run admin -- verify-aggregates --repair` recomputes them (docs/data-contract.md).
--
-- 2. The bound. list_prompts answers every prompt of an analysis in one reply (docs/contract.md), and a
--    deployed function may answer at most 6 MB. Under the bounds below, the costliest prompt (text,
--    group name and language at their bounds, made of C0 controls: 6 bytes each in JSON, 7 in the Lambda
--    response that carries the body as a JSON string) weighs about 9.5 KB in the Lambda response, so 500
--    of them make about 4.8 MB of the 6.3: prompt_totals refuses a 501st prompt (SQLSTATE 23514, constraint
--    prompts_per_analysis), whoever writes it. Measured in test/integration/catalog-bounds.test.ts;
--    why 500 and what to do past it: docs/data-contract.md "Bounds".
--
--      prompt_groups.name   300  a group's name, as the product shows it
--      prompts.language      35  a language tag (ISO 639-1 in practice; 35 is BCP 47's longest useful tag)
--      prompts per analysis 500
--
-- Adding the bounds checks the rows already stored: an analysis past 500 prompts, or a name or language
-- past its bound, makes this migration fail (the deploy stops) until the product has split the analysis
-- or shortened the value. Find them with
--   SELECT analysis_id, count(*) FROM prompts GROUP BY 1 HAVING count(*) > 500;
--
-- 3. The indexes the catalogue and a group's prompts page on, in creation order (then id).

ALTER TABLE prompt_groups ADD CONSTRAINT prompt_groups_name_length CHECK (char_length(name) <= 300);
ALTER TABLE prompts ADD CONSTRAINT prompts_language_length CHECK (char_length(language) <= 35);

CREATE TABLE prompt_group_counts (
  analysis_id  uuid NOT NULL,
  group_key    uuid NOT NULL,            -- the prompt's group; the nil UUID: in no group
  n            integer NOT NULL CHECK (n >= 0),
  PRIMARY KEY (analysis_id, group_key)
);

CREATE TABLE prompt_totals (
  analysis_id  uuid PRIMARY KEY,
  n            integer NOT NULL CHECK (n >= 0),
  CONSTRAINT prompts_per_analysis CHECK (n <= 500)
);

-- No prompt is written while the counts are taken and the triggers put in place.
LOCK TABLE prompts IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO prompt_group_counts (analysis_id, group_key, n)
SELECT analysis_id, coalesce(group_id, '00000000-0000-0000-0000-000000000000'), count(*)::integer FROM prompts GROUP BY 1, 2;
INSERT INTO prompt_totals (analysis_id, n)
SELECT analysis_id, count(*)::integer FROM prompts GROUP BY 1;

-- Applies signed deltas per (analysis, group) to both tables in one statement: a key gained is upserted, a
-- key lost is updated (an INSERT's CHECKs would see the negative delta itself).
CREATE FUNCTION prompt_counts_apply(p_moved jsonb) RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH moved AS (
    SELECT (d ->> 'a')::uuid AS analysis_id, (d ->> 'g')::uuid AS group_key, (d ->> 'n')::integer AS n
      FROM jsonb_array_elements(p_moved) d
  ), totals AS (
    SELECT analysis_id, sum(n)::integer AS n FROM moved GROUP BY analysis_id HAVING sum(n) <> 0
  ), groups_gained AS (
    INSERT INTO prompt_group_counts AS t (analysis_id, group_key, n)
    SELECT analysis_id, group_key, n FROM moved WHERE n > 0
    ON CONFLICT (analysis_id, group_key) DO UPDATE SET n = t.n + excluded.n
    RETURNING 1
  ), groups_lost AS (
    UPDATE prompt_group_counts t SET n = t.n + m.n
      FROM moved m WHERE m.n < 0 AND t.analysis_id = m.analysis_id AND t.group_key = m.group_key
    RETURNING 1
  ), totals_gained AS (
    INSERT INTO prompt_totals AS t (analysis_id, n)
    SELECT analysis_id, n FROM totals WHERE n > 0
    ON CONFLICT (analysis_id) DO UPDATE SET n = t.n + excluded.n
    RETURNING 1
  )
  UPDATE prompt_totals t SET n = t.n + x.n FROM totals x WHERE x.n < 0 AND t.analysis_id = x.analysis_id
$$;

CREATE FUNCTION prompt_counts_on_insert() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM prompt_counts_apply(coalesce(
    (SELECT jsonb_agg(jsonb_build_object('a', analysis_id, 'g', group_key, 'n', n))
       FROM (SELECT analysis_id, coalesce(group_id, '00000000-0000-0000-0000-000000000000') AS group_key, count(*)::integer AS n
               FROM added GROUP BY 1, 2) x),
    '[]'));
  RETURN NULL;
END $$;

CREATE FUNCTION prompt_counts_on_delete() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM prompt_counts_apply(coalesce(
    (SELECT jsonb_agg(jsonb_build_object('a', analysis_id, 'g', group_key, 'n', -n))
       FROM (SELECT analysis_id, coalesce(group_id, '00000000-0000-0000-0000-000000000000') AS group_key, count(*)::integer AS n
               FROM removed GROUP BY 1, 2) x),
    '[]'));
  RETURN NULL;
END $$;

-- Editing a prompt's text updates its row: only a change of analysis or group moves a count (the deltas
-- of unchanged rows cancel out and nothing is written).
CREATE FUNCTION prompt_counts_on_update() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM prompt_counts_apply(coalesce(
    (SELECT jsonb_agg(jsonb_build_object('a', analysis_id, 'g', group_key, 'n', n))
       FROM (SELECT analysis_id, group_key, sum(n)::integer AS n
               FROM (SELECT analysis_id, coalesce(group_id, '00000000-0000-0000-0000-000000000000') AS group_key, -1 AS n FROM removed
                     UNION ALL
                     SELECT analysis_id, coalesce(group_id, '00000000-0000-0000-0000-000000000000'), 1 FROM added) m
              GROUP BY 1, 2
             HAVING sum(n) <> 0) x),
    '[]'));
  RETURN NULL;
END $$;

CREATE FUNCTION prompt_counts_clear() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  DELETE FROM prompt_group_counts;
  DELETE FROM prompt_totals;
  RETURN NULL;
END $$;

CREATE TRIGGER prompts_counted_insert AFTER INSERT ON prompts
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION prompt_counts_on_insert();
CREATE TRIGGER prompts_counted_delete AFTER DELETE ON prompts
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION prompt_counts_on_delete();
CREATE TRIGGER prompts_counted_update AFTER UPDATE ON prompts
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION prompt_counts_on_update();
CREATE TRIGGER prompts_counted_truncate AFTER TRUNCATE ON prompts
  FOR EACH STATEMENT EXECUTE FUNCTION prompt_counts_clear();

-- The catalogue pages in creation order; a group's prompts (or those in no group: group_id IS NULL is an
-- index condition too) in the same order, within the group. The second replaces prompts_analysis, its prefix.
CREATE INDEX prompts_catalogue ON prompts (analysis_id, created_at, id);
CREATE INDEX prompts_group_order ON prompts (analysis_id, group_id, created_at, id);
DROP INDEX prompts_analysis;
