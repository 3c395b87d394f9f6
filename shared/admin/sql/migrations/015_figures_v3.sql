-- What the store holds to split prompts into branded and non-branded ones, to attribute cited domains to
-- direct competitors, and to tell which model an engine answered with (docs/data-contract.md).
--
--   prompts.branded          whether the prompt names the tracked brand, as the pipeline classified it;
--                            NULL: not classified, the service then applies the rule of fig_branded_rule.
--   analyses.brand_aliases   other names of the tracked brand the rule looks for besides brands.name.
--   competitors.domains      further domains of a direct competitor, besides competitors.domain: a citation
--                            of any of them is a competitor source.
--   run_engines.model        the model the engine answered with in that run (e.g. gpt-4o); NULL: unknown.
--
-- The rule for prompts the pipeline left unclassified: the prompt's text names the tracked brand or one of
-- its aliases, compared after folding both (fig_fold: compatibility decomposition, lower case, combining
-- accents removed, every run of characters that are neither letters nor digits made one space) on word
-- boundaries. Both are pure and inlined wherever a read uses them.

ALTER TABLE prompts ADD COLUMN branded boolean;
ALTER TABLE analyses ADD COLUMN brand_aliases text[] NOT NULL DEFAULT '{}';
ALTER TABLE competitors ADD COLUMN domains text[] NOT NULL DEFAULT '{}';
ALTER TABLE run_engines ADD COLUMN model text;

-- Bounds, as for the other strings an answer's reads return (migration 007).
ALTER TABLE analyses ADD CONSTRAINT analyses_brand_aliases_bound CHECK (cardinality(brand_aliases) <= 50);
ALTER TABLE competitors ADD CONSTRAINT competitors_domains_bound CHECK (cardinality(domains) <= 50);
ALTER TABLE run_engines ADD CONSTRAINT run_engines_model_length CHECK (char_length(model) <= 100);

-- The models of the runs of a period, read by the comparison of a window with the period before it from
-- this index alone (only engines whose model is known have an entry).
CREATE INDEX run_engines_model ON run_engines (run_id) INCLUDE (engine, model) WHERE model IS NOT NULL;

-- The share of voice on the direct universe reads the brands of a window's edge days from this index
-- alone (which brands, attributed to whom, how many mentions).
CREATE INDEX fig_run_brand_universe ON fig_run_brand (analysis_id, day) INCLUDE (brand, is_tracked, competitor_id, mentions);

-- A text as the branded rule compares it: NFKD, lower case, combining marks of the Latin, Greek, Cyrillic,
-- Hebrew and Arabic blocks removed, anything that is neither a letter nor a digit a single space, trimmed.
CREATE FUNCTION fig_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT btrim(regexp_replace(
           regexp_replace(lower(normalize(t, NFKD)), '[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u064b-\u065f\u0670\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]', '', 'g'),
           '[^[:alnum:]]+', ' ', 'g'))
$$;

-- Whether a prompt's text names one of the names (the tracked brand and its aliases) on word boundaries,
-- after folding both; a name that folds to nothing never matches.
CREATE FUNCTION fig_branded_rule(p_text text, p_names text[]) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT EXISTS (SELECT 1 FROM unnest(p_names) n (name)
                  WHERE fig_fold(n.name) <> ''
                    AND position(' ' || fig_fold(n.name) || ' ' IN ' ' || fig_fold(p_text) || ' ') > 0)
$$;
