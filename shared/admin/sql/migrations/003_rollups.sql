-- Per-run and per-month aggregates of the measurements, written by finish_run_extraction when a run's
-- extraction finishes. They are measurements kept in the store (counts and sums, never ratios and never
-- response bodies), so every read still starts from the data; they exist so that a figure read costs
-- O(periods x dimension) rows instead of O(answers).
--
-- Two grains of the same counts:
--   fig_run_*    one row per finished run (x engine / brand / domain / group / prompt), with its UTC day
--                (the day the run started). Used for last-run, for the partial months at the edges of a
--                window, and for the daily series.
--   fig_month_*  the same counts summed per calendar month (UTC). A window covers its whole months
--                from these and only its edge days from fig_run_*, so a longer history adds few rows.
-- Month rows are maintained additively (+ the run's rows on finish, - the old rows when a run is
-- extracted again), so runs may finish in any order. They are updated once per run of their month:
-- fillfactor 70 leaves room for HOT updates, and autovacuum reclaims the old versions.
--
-- Measure columns (shared by every table below):
--   answers          answers stored for the run (every extraction state)
--   extracted        answers whose extraction succeeded: the denominator of visibility
--   mentioned        extracted answers naming the tracked brand at least once
--   tracked_mentions mentions of the tracked brand
--   brand_mentions   mentions of any brand (tracked, direct and indirect competitors)
--   position_sum/_n  sum and count of the tracked brand's first position, per answer naming it
--   sentiment_sum/_n sum and count of the scored sentiments of the tracked brand's mentions
--   citations        citations (sources) of extracted answers
--   owned_citations  of which to a domain in the analysis's owned_domains at extraction time

CREATE TABLE fig_run_engine (
  run_id uuid NOT NULL REFERENCES runs (id), analysis_id uuid NOT NULL, day date NOT NULL, engine text NOT NULL,
  expected integer NOT NULL, collected integer NOT NULL, failed integer NOT NULL, recipe text,
  answers integer NOT NULL, extracted integer NOT NULL, mentioned integer NOT NULL,
  tracked_mentions integer NOT NULL, brand_mentions integer NOT NULL,
  position_sum bigint NOT NULL, position_n integer NOT NULL, sentiment_sum numeric NOT NULL, sentiment_n integer NOT NULL,
  citations integer NOT NULL, owned_citations integer NOT NULL,
  PRIMARY KEY (run_id, engine)
);
CREATE INDEX fig_run_engine_day ON fig_run_engine (analysis_id, day);

CREATE TABLE fig_month_engine (
  analysis_id uuid NOT NULL, month date NOT NULL, engine text NOT NULL,
  expected integer NOT NULL, collected integer NOT NULL, failed integer NOT NULL,
  answers integer NOT NULL, extracted integer NOT NULL, mentioned integer NOT NULL,
  tracked_mentions integer NOT NULL, brand_mentions integer NOT NULL,
  position_sum bigint NOT NULL, position_n integer NOT NULL, sentiment_sum numeric NOT NULL, sentiment_n integer NOT NULL,
  citations integer NOT NULL, owned_citations integer NOT NULL,
  PRIMARY KEY (analysis_id, month, engine)
) WITH (fillfactor = 70);

-- Extraction recipes served, counted in run x engine units, so "recipes actually served" over a window
-- needs no scan of run_engines.
CREATE TABLE fig_month_recipe (
  analysis_id uuid NOT NULL, month date NOT NULL, recipe text NOT NULL, n integer NOT NULL,
  PRIMARY KEY (analysis_id, month, recipe)
) WITH (fillfactor = 70);

-- group_key: the prompt's group at extraction time; the nil UUID stands for "in no group".
CREATE TABLE fig_run_group (
  run_id uuid NOT NULL REFERENCES runs (id), analysis_id uuid NOT NULL, day date NOT NULL, group_key uuid NOT NULL,
  answers integer NOT NULL, extracted integer NOT NULL, mentioned integer NOT NULL,
  tracked_mentions integer NOT NULL, brand_mentions integer NOT NULL,
  position_sum bigint NOT NULL, position_n integer NOT NULL, sentiment_sum numeric NOT NULL, sentiment_n integer NOT NULL,
  citations integer NOT NULL, owned_citations integer NOT NULL,
  PRIMARY KEY (run_id, group_key)
);
CREATE INDEX fig_run_group_day ON fig_run_group (analysis_id, day);

CREATE TABLE fig_month_group (
  analysis_id uuid NOT NULL, month date NOT NULL, group_key uuid NOT NULL,
  answers integer NOT NULL, extracted integer NOT NULL, mentioned integer NOT NULL,
  tracked_mentions integer NOT NULL, brand_mentions integer NOT NULL,
  position_sum bigint NOT NULL, position_n integer NOT NULL, sentiment_sum numeric NOT NULL, sentiment_n integer NOT NULL,
  citations integer NOT NULL, owned_citations integer NOT NULL,
  PRIMARY KEY (analysis_id, month, group_key)
) WITH (fillfactor = 70);

-- Question grain: run x engine x prompt (answer grain by nature); reads bound it by a page of prompts.
CREATE TABLE fig_run_prompt (
  run_id uuid NOT NULL REFERENCES runs (id), analysis_id uuid NOT NULL, day date NOT NULL,
  prompt_id uuid NOT NULL, engine text NOT NULL,
  answers integer NOT NULL, extracted integer NOT NULL, mentioned integer NOT NULL,
  tracked_mentions integer NOT NULL, brand_mentions integer NOT NULL,
  position_sum bigint NOT NULL, position_n integer NOT NULL, sentiment_sum numeric NOT NULL, sentiment_n integer NOT NULL,
  citations integer NOT NULL, owned_citations integer NOT NULL,
  PRIMARY KEY (run_id, prompt_id, engine)
);
-- Covering: a page of prompts over N edge days is read from the index alone (no heap visits).
CREATE INDEX fig_run_prompt_day ON fig_run_prompt (prompt_id, day) INCLUDE (
  analysis_id, engine, answers, extracted, mentioned, tracked_mentions, brand_mentions,
  position_sum, position_n, sentiment_sum, sentiment_n, citations, owned_citations);

CREATE TABLE fig_month_prompt (
  analysis_id uuid NOT NULL, month date NOT NULL, prompt_id uuid NOT NULL, engine text NOT NULL,
  answers integer NOT NULL, extracted integer NOT NULL, mentioned integer NOT NULL,
  tracked_mentions integer NOT NULL, brand_mentions integer NOT NULL,
  position_sum bigint NOT NULL, position_n integer NOT NULL, sentiment_sum numeric NOT NULL, sentiment_n integer NOT NULL,
  citations integer NOT NULL, owned_citations integer NOT NULL,
  PRIMARY KEY (prompt_id, month, engine)
) WITH (fillfactor = 70);

-- Brands named in extracted answers: the tracked one, direct (competitor_id) and indirect competitors.
-- answers: answers naming it; position_*: its first position per such answer.
CREATE TABLE fig_run_brand (
  run_id uuid NOT NULL REFERENCES runs (id), analysis_id uuid NOT NULL, day date NOT NULL, brand text NOT NULL,
  is_tracked boolean NOT NULL, competitor_id uuid,
  mentions integer NOT NULL, answers integer NOT NULL, position_sum bigint NOT NULL, position_n integer NOT NULL,
  PRIMARY KEY (run_id, brand)
);
CREATE INDEX fig_run_brand_day ON fig_run_brand (analysis_id, day);

CREATE TABLE fig_month_brand (
  analysis_id uuid NOT NULL, month date NOT NULL, brand text NOT NULL,
  is_tracked boolean NOT NULL, competitor_id uuid,
  mentions integer NOT NULL, answers integer NOT NULL, position_sum bigint NOT NULL, position_n integer NOT NULL,
  PRIMARY KEY (analysis_id, month, brand)
) WITH (fillfactor = 70);

-- Cited domains of extracted answers; answers: answers citing the domain at least once.
CREATE TABLE fig_run_domain (
  run_id uuid NOT NULL REFERENCES runs (id), analysis_id uuid NOT NULL, day date NOT NULL, domain text NOT NULL,
  citations integer NOT NULL, answers integer NOT NULL,
  PRIMARY KEY (run_id, domain)
);
CREATE INDEX fig_run_domain_day ON fig_run_domain (analysis_id, day);

CREATE TABLE fig_month_domain (
  analysis_id uuid NOT NULL, month date NOT NULL, domain text NOT NULL,
  citations integer NOT NULL, answers integer NOT NULL,
  PRIMARY KEY (analysis_id, month, domain)
) WITH (fillfactor = 70);

-- Runs collected but not yet (or never) extracted: the reads add their volumes live from run_engines.
CREATE INDEX runs_unfinished ON runs (analysis_id, started_at) WHERE state <> 'finished';
CREATE INDEX runs_finished ON runs (analysis_id, started_at DESC) WHERE state = 'finished';

-- Adds (sign 1) or removes (sign -1) one run's rows to the month rows.
CREATE FUNCTION fig_apply_months(p_run uuid, p_sign integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fig_month_engine AS t
  SELECT analysis_id, date_trunc('month', day)::date, engine, p_sign * expected, p_sign * collected, p_sign * failed,
         p_sign * answers, p_sign * extracted, p_sign * mentioned, p_sign * tracked_mentions, p_sign * brand_mentions,
         p_sign * position_sum, p_sign * position_n, p_sign * sentiment_sum, p_sign * sentiment_n,
         p_sign * citations, p_sign * owned_citations
    FROM fig_run_engine WHERE run_id = p_run
  ON CONFLICT (analysis_id, month, engine) DO UPDATE SET
    expected = t.expected + excluded.expected, collected = t.collected + excluded.collected, failed = t.failed + excluded.failed,
    answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
    tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
    position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
    sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
    citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations;

  INSERT INTO fig_month_recipe AS t
  SELECT analysis_id, date_trunc('month', day)::date, recipe, p_sign * count(*)::int
    FROM fig_run_engine WHERE run_id = p_run AND recipe IS NOT NULL GROUP BY 1, 2, 3
  ON CONFLICT (analysis_id, month, recipe) DO UPDATE SET n = t.n + excluded.n;

  INSERT INTO fig_month_group AS t
  SELECT analysis_id, date_trunc('month', day)::date, group_key,
         p_sign * answers, p_sign * extracted, p_sign * mentioned, p_sign * tracked_mentions, p_sign * brand_mentions,
         p_sign * position_sum, p_sign * position_n, p_sign * sentiment_sum, p_sign * sentiment_n,
         p_sign * citations, p_sign * owned_citations
    FROM fig_run_group WHERE run_id = p_run
  ON CONFLICT (analysis_id, month, group_key) DO UPDATE SET
    answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
    tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
    position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
    sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
    citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations;

  INSERT INTO fig_month_prompt AS t
  SELECT analysis_id, date_trunc('month', day)::date, prompt_id, engine,
         p_sign * answers, p_sign * extracted, p_sign * mentioned, p_sign * tracked_mentions, p_sign * brand_mentions,
         p_sign * position_sum, p_sign * position_n, p_sign * sentiment_sum, p_sign * sentiment_n,
         p_sign * citations, p_sign * owned_citations
    FROM fig_run_prompt WHERE run_id = p_run
  ON CONFLICT (prompt_id, month, engine) DO UPDATE SET
    answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
    tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
    position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
    sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
    citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations;

  INSERT INTO fig_month_brand AS t
  SELECT analysis_id, date_trunc('month', day)::date, brand, is_tracked, competitor_id,
         p_sign * mentions, p_sign * answers, p_sign * position_sum, p_sign * position_n
    FROM fig_run_brand WHERE run_id = p_run
  ON CONFLICT (analysis_id, month, brand) DO UPDATE SET
    is_tracked = excluded.is_tracked, competitor_id = excluded.competitor_id,
    mentions = t.mentions + excluded.mentions, answers = t.answers + excluded.answers,
    position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n;

  INSERT INTO fig_month_domain AS t
  SELECT analysis_id, date_trunc('month', day)::date, domain, p_sign * citations, p_sign * answers
    FROM fig_run_domain WHERE run_id = p_run
  ON CONFLICT (analysis_id, month, domain) DO UPDATE SET
    citations = t.citations + excluded.citations, answers = t.answers + excluded.answers;
END
$$;

-- Called by the collection pipeline when a run's extraction finishes (after its answers, mentions and
-- citations are written). Idempotent: a run extracted again replaces its previous contribution.
CREATE FUNCTION finish_run_extraction(p_run uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM fig_run_engine WHERE run_id = p_run) THEN
    PERFORM fig_apply_months(p_run, -1);
    DELETE FROM fig_run_engine WHERE run_id = p_run;
    DELETE FROM fig_run_group WHERE run_id = p_run;
    DELETE FROM fig_run_prompt WHERE run_id = p_run;
    DELETE FROM fig_run_brand WHERE run_id = p_run;
    DELETE FROM fig_run_domain WHERE run_id = p_run;
  END IF;

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
           coalesce(m.sent_sum, 0) AS sent_sum, coalesce(m.sent_n, 0) AS sent_n,
           coalesce(c.cit_n, 0) AS cit_n, coalesce(c.owned_n, 0) AS owned_n
      FROM r JOIN answers x ON x.run_id = r.id JOIN prompts p ON p.id = x.prompt_id
      LEFT JOIN LATERAL (
        SELECT count(*) FILTER (WHERE m.is_tracked) AS tracked_n, count(*) AS brand_n,
               min(m.position) FILTER (WHERE m.is_tracked) AS first_pos,
               sum(m.sentiment) FILTER (WHERE m.is_tracked) AS sent_sum,
               count(m.sentiment) FILTER (WHERE m.is_tracked) AS sent_n
          FROM mentions m WHERE m.answer_id = x.id AND x.extraction_state = 'extracted'
      ) m ON true
      LEFT JOIN LATERAL (
        SELECT count(*) AS cit_n, count(*) FILTER (WHERE c.domain = ANY (r.owned_domains)) AS owned_n
          FROM citations c WHERE c.answer_id = x.id AND x.extraction_state = 'extracted'
      ) c ON true
  ), e AS (
    INSERT INTO fig_run_engine
    SELECT r.id, r.analysis_id, r.day, re.engine, re.expected, re.collected, re.failed, re.recipe,
           coalesce(s.answers, 0), coalesce(s.extracted, 0), coalesce(s.mentioned, 0),
           coalesce(s.tracked_mentions, 0), coalesce(s.brand_mentions, 0),
           coalesce(s.position_sum, 0), coalesce(s.position_n, 0), coalesce(s.sentiment_sum, 0), coalesce(s.sentiment_n, 0),
           coalesce(s.citations, 0), coalesce(s.owned_citations, 0)
      FROM r JOIN run_engines re ON re.run_id = r.id
      LEFT JOIN (
        SELECT engine, count(*)::int AS answers, count(*) FILTER (WHERE ok)::int AS extracted,
               count(*) FILTER (WHERE ok AND tracked_n > 0)::int AS mentioned,
               sum(tracked_n)::int AS tracked_mentions, sum(brand_n)::int AS brand_mentions,
               coalesce(sum(first_pos), 0)::bigint AS position_sum, count(first_pos)::int AS position_n,
               sum(sent_sum) AS sentiment_sum, sum(sent_n)::int AS sentiment_n,
               sum(cit_n)::int AS citations, sum(owned_n)::int AS owned_citations
          FROM a GROUP BY engine
      ) s ON s.engine = re.engine
  ), g AS (
    INSERT INTO fig_run_group
    SELECT r.id, r.analysis_id, r.day, a.group_key, count(*), count(*) FILTER (WHERE ok),
           count(*) FILTER (WHERE ok AND tracked_n > 0), sum(tracked_n), sum(brand_n),
           coalesce(sum(first_pos), 0), count(first_pos), sum(sent_sum), sum(sent_n), sum(cit_n), sum(owned_n)
      FROM a, r GROUP BY r.id, r.analysis_id, r.day, a.group_key
  )
  INSERT INTO fig_run_prompt
  SELECT r.id, r.analysis_id, r.day, a.prompt_id, a.engine, count(*), count(*) FILTER (WHERE ok),
         count(*) FILTER (WHERE ok AND tracked_n > 0), sum(tracked_n), sum(brand_n),
         coalesce(sum(first_pos), 0), count(first_pos), sum(sent_sum), sum(sent_n), sum(cit_n), sum(owned_n)
    FROM a, r GROUP BY r.id, r.analysis_id, r.day, a.prompt_id, a.engine;

  INSERT INTO fig_run_brand
  SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date, coalesce(k.name, f.brand_name),
         bool_or(f.is_tracked), (array_agg(f.competitor_id))[1], sum(f.n)::int, count(*)::int,
         sum(f.first_pos)::bigint, count(*)::int
    FROM runs r
    JOIN answers x ON x.run_id = r.id AND x.extraction_state = 'extracted'
    CROSS JOIN LATERAL (
      SELECT m.brand_name, m.is_tracked, m.competitor_id, count(*) AS n, min(m.position) AS first_pos
        FROM mentions m WHERE m.answer_id = x.id
       GROUP BY m.brand_name, m.is_tracked, m.competitor_id
    ) f
    LEFT JOIN competitors k ON k.id = f.competitor_id
   WHERE r.id = p_run
   GROUP BY r.id, r.analysis_id, r.started_at, coalesce(k.name, f.brand_name);

  INSERT INTO fig_run_domain
  SELECT r.id, r.analysis_id, (r.started_at AT TIME ZONE 'UTC')::date, f.domain, sum(f.n)::int, count(*)::int
    FROM runs r
    JOIN answers x ON x.run_id = r.id AND x.extraction_state = 'extracted'
    CROSS JOIN LATERAL (SELECT c.domain, count(*) AS n FROM citations c WHERE c.answer_id = x.id GROUP BY c.domain) f
   WHERE r.id = p_run
   GROUP BY r.id, r.analysis_id, r.started_at, f.domain;

  PERFORM fig_apply_months(p_run, 1);
END
$$;
