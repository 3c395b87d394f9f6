-- What the rest of the store can weigh in one reply: the engines and competitors of an analysis, and the
-- names the reads return besides the answers' (migration 007) and the prompts' (014).
--
-- Every reply is built from stored rows, and a deployed function may answer at most 6 MB. Nothing bounded
-- how many engines an analysis collects from, yet a run, the runs list (up to 100 runs), the engines read
-- and a page of a group's prompts carry figures or counts per engine; nor how many direct competitors it
-- has, which the analysis and the competitors read list whole; nor the names those replies repeat. With
-- these bounds the largest reply of each read fits, whatever the characters (measured with every string at
-- its bound and made of the costliest character: test/integration/reply-bounds.test.ts;
-- docs/data-contract.md "Bounds").
--
--   engines per analysis       32  the engines an analysis is configured with (analyses.engines) and those
--                                  its runs collected from (run_engines), together: about ten AI engines
--                                  are tracked today, and every figure read lists the union of both
--   analyses.engines           32  entries, for the same reason (the configured list alone)
--   analyses.owned_domains     50  entries, as competitors.domains (migration 015)
--   a domain                  253  characters, the longest DNS name, as citations.domain (migration 007):
--                                  brands.domain, competitors.domain, each of analyses.owned_domains and
--                                  of competitors.domains
--   each of analyses.brand_aliases
--                             200  as a brand's name
--   analyses.language,         35  as prompts.language (migration 014)
--   analyses.country
--   plans.key                  64  as engines.key: a technical identifier (free, pro...)
--   competitors per analysis  100  direct competitors, configured by the product: a handful in practice
--   engines.name              100  an engine's display name, as a model's name (migration 015)
--   brands.name,              200  as mentions.brand_name: a brand as answers name it
--   competitors.name
--   analyses.name, analyses.slug, workspaces.name, workspaces.slug, api_keys.name
--                             300  as prompt_groups.name (migration 014)
--
-- The two counts are checked by triggers, once per statement over the rows it wrote (SQLSTATE 23514,
-- check_violation, naming engines_per_analysis or competitors_per_analysis), after taking the analysis's
-- row lock, so that writers adding engines or competitors to one analysis at once queue and each counts
-- the others' committed rows (writers in READ COMMITTED, PostgreSQL's default; writers that disable
-- triggers are not checked, as in migration 023). Removing never breaks a bound, so only additions and
-- moves are checked. Counting an analysis's engines reads its runs' engine rows (about 6,600 for three
-- years of daily runs at six engines): once per statement that adds engines, which the pipeline does once
-- a run.
--
-- Adding the bounds checks the rows already stored: a value past its bound, or an analysis past either
-- count, makes this migration fail (the deploy stops) until the product has fixed it. Find them with
--   SELECT analysis_id, count(*) FROM competitors GROUP BY 1 HAVING count(*) > 100;
--   SELECT r.analysis_id, count(DISTINCT e.engine) FROM runs r JOIN run_engines e ON e.run_id = r.id GROUP BY 1 HAVING count(DISTINCT e.engine) > 32;

-- Whether every entry of a list is at most p_max characters long; calls only built-in functions, as
-- domains_in_form (migration 027) does, so that pg_restore finds them when it checks the rows it loads.
CREATE FUNCTION texts_within(p_texts text[], p_max integer) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(bool_and(char_length(t) <= p_max), true) FROM unnest(p_texts) t
$$;

ALTER TABLE plans ADD CONSTRAINT plans_key_length CHECK (char_length(key) <= 64);
ALTER TABLE engines ADD CONSTRAINT engines_name_length CHECK (char_length(name) <= 100);
ALTER TABLE brands
  ADD CONSTRAINT brands_name_length CHECK (char_length(name) <= 200),
  ADD CONSTRAINT brands_domain_length CHECK (char_length(domain) <= 253);
ALTER TABLE competitors
  ADD CONSTRAINT competitors_name_length CHECK (char_length(name) <= 200),
  ADD CONSTRAINT competitors_domain_length CHECK (char_length(domain) <= 253),
  ADD CONSTRAINT competitors_domains_length CHECK (texts_within(domains, 253));
ALTER TABLE analyses
  ADD CONSTRAINT analyses_name_length CHECK (char_length(name) <= 300),
  ADD CONSTRAINT analyses_slug_length CHECK (char_length(slug) <= 300),
  ADD CONSTRAINT analyses_language_length CHECK (char_length(language) <= 35),
  ADD CONSTRAINT analyses_country_length CHECK (char_length(country) <= 35),
  ADD CONSTRAINT analyses_engines_bound CHECK (cardinality(engines) <= 32),
  ADD CONSTRAINT analyses_owned_domains_bound CHECK (cardinality(owned_domains) <= 50),
  ADD CONSTRAINT analyses_owned_domains_length CHECK (texts_within(owned_domains, 253)),
  ADD CONSTRAINT analyses_brand_aliases_length CHECK (texts_within(brand_aliases, 200));
ALTER TABLE workspaces
  ADD CONSTRAINT workspaces_name_length CHECK (char_length(name) <= 300),
  ADD CONSTRAINT workspaces_slug_length CHECK (char_length(slug) <= 300);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_name_length CHECK (char_length(name) <= 300);

-- The engines of an analysis: those it is configured with and those its runs collected from.
CREATE FUNCTION analysis_engine_count(p_analysis uuid) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT count(*) FROM (
    SELECT unnest(a.engines) FROM analyses a WHERE a.id = p_analysis
    UNION
    SELECT e.engine FROM runs r JOIN run_engines e ON e.run_id = r.id WHERE r.analysis_id = p_analysis
  ) s
$$;

-- Refuses the statement if one of these analyses now has more than 32 engines (after their row locks, in
-- id order, so concurrent writers neither miss each other's engines nor deadlock).
CREATE FUNCTION engines_per_analysis_check(p_analyses uuid[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_over record;
BEGIN
  PERFORM 1 FROM analyses WHERE id = ANY (p_analyses) ORDER BY id FOR NO KEY UPDATE;
  -- Each analysis counted once (materialized: a pulled-up subquery would count it again in the filter).
  WITH counted AS MATERIALIZED (
    SELECT a.id, analysis_engine_count(a.id) AS n FROM (SELECT DISTINCT unnest(p_analyses) AS id) a
  )
  SELECT c.id, c.n INTO v_over FROM counted c WHERE c.n > 32 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'analysis %: % engines, at most 32 (configured and collected from, together)', v_over.id, v_over.n
      USING ERRCODE = 'check_violation', CONSTRAINT = 'engines_per_analysis';
  END IF;
END $$;

CREATE FUNCTION engines_per_analysis_of_run_engines() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM engines_per_analysis_check(ARRAY(SELECT DISTINCT r.analysis_id FROM new_rows n JOIN runs r ON r.id = n.run_id));
  RETURN NULL;
END $$;

CREATE FUNCTION engines_per_analysis_of_row() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF TG_TABLE_NAME = 'analyses' THEN
    PERFORM engines_per_analysis_check(ARRAY[NEW.id]);
  ELSIF TG_TABLE_NAME = 'runs' THEN
    PERFORM engines_per_analysis_check(ARRAY[NEW.analysis_id]);
  ELSE
    PERFORM engines_per_analysis_check(ARRAY(SELECT r.analysis_id FROM runs r WHERE r.id = NEW.run_id));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER engines_per_analysis_insert AFTER INSERT ON run_engines
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engines_per_analysis_of_run_engines();
CREATE TRIGGER engines_per_analysis_move AFTER UPDATE OF run_id, engine ON run_engines
  FOR EACH ROW WHEN (OLD.run_id IS DISTINCT FROM NEW.run_id OR OLD.engine IS DISTINCT FROM NEW.engine)
  EXECUTE FUNCTION engines_per_analysis_of_row();
CREATE TRIGGER engines_per_analysis_run_move AFTER UPDATE OF analysis_id ON runs
  FOR EACH ROW WHEN (OLD.analysis_id IS DISTINCT FROM NEW.analysis_id) EXECUTE FUNCTION engines_per_analysis_of_row();
CREATE TRIGGER engines_per_analysis_configured AFTER INSERT OR UPDATE OF engines ON analyses
  FOR EACH ROW EXECUTE FUNCTION engines_per_analysis_of_row();

CREATE FUNCTION competitors_per_analysis_check(p_analyses uuid[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  v_over record;
BEGIN
  PERFORM 1 FROM analyses WHERE id = ANY (p_analyses) ORDER BY id FOR NO KEY UPDATE;
  SELECT c.analysis_id, count(*) AS n INTO v_over
    FROM competitors c WHERE c.analysis_id = ANY (p_analyses)
   GROUP BY c.analysis_id HAVING count(*) > 100
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'analysis %: % direct competitors, at most 100', v_over.analysis_id, v_over.n
      USING ERRCODE = 'check_violation', CONSTRAINT = 'competitors_per_analysis';
  END IF;
END $$;

CREATE FUNCTION competitors_per_analysis_of_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM competitors_per_analysis_check(ARRAY(SELECT DISTINCT analysis_id FROM new_rows));
  RETURN NULL;
END $$;

CREATE TRIGGER competitors_per_analysis_insert AFTER INSERT ON competitors
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION competitors_per_analysis_of_rows();
CREATE TRIGGER competitors_per_analysis_update AFTER UPDATE ON competitors
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION competitors_per_analysis_of_rows();

-- The rows already stored, under the same bounds and with the same refusals.
SELECT engines_per_analysis_check(ARRAY(SELECT id FROM analyses));
SELECT competitors_per_analysis_check(ARRAY(SELECT DISTINCT analysis_id FROM competitors));
