-- How many analyses each brand of each workspace holds (analysis_counts), kept by the store itself on
-- every write to analyses (insert, delete, a change of workspace or brand, truncate), in the writer's
-- transaction, so the count is always the one a scan would give. The caller statement reads it for the
-- number of analyses a key reaches, at a cost that grows with the workspace's brands, not its analyses.
-- The service reads it; only these triggers write it (SECURITY DEFINER: the product's and the pipeline's
-- roles need no grant on it).
--
-- And the indexes list_analyses pages on: slugs in byte order, within a workspace or within one brand.

CREATE TABLE analysis_counts (
  workspace_id  uuid NOT NULL,
  brand_id      uuid NOT NULL,
  n             integer NOT NULL CHECK (n >= 0),
  PRIMARY KEY (workspace_id, brand_id)
);

-- No analysis is written while the counts are taken and the triggers put in place.
LOCK TABLE analyses IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO analysis_counts (workspace_id, brand_id, n)
SELECT workspace_id, brand_id, count(*)::integer FROM analyses GROUP BY workspace_id, brand_id;

CREATE FUNCTION analysis_counts_add() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO analysis_counts AS c (workspace_id, brand_id, n)
  SELECT a.workspace_id, a.brand_id, count(*)::integer FROM added a GROUP BY a.workspace_id, a.brand_id
  ON CONFLICT (workspace_id, brand_id) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION analysis_counts_remove() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE analysis_counts c SET n = c.n - r.n
    FROM (SELECT a.workspace_id, a.brand_id, count(*)::integer AS n FROM removed a GROUP BY a.workspace_id, a.brand_id) r
   WHERE c.workspace_id = r.workspace_id AND c.brand_id = r.brand_id;
  RETURN NULL;
END $$;

CREATE FUNCTION analysis_counts_move() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  UPDATE analysis_counts c SET n = c.n - r.n
    FROM (SELECT a.workspace_id, a.brand_id, count(*)::integer AS n FROM removed a GROUP BY a.workspace_id, a.brand_id) r
   WHERE c.workspace_id = r.workspace_id AND c.brand_id = r.brand_id;
  INSERT INTO analysis_counts AS c (workspace_id, brand_id, n)
  SELECT a.workspace_id, a.brand_id, count(*)::integer FROM added a GROUP BY a.workspace_id, a.brand_id
  ON CONFLICT (workspace_id, brand_id) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION analysis_counts_clear() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  DELETE FROM analysis_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER analyses_counted_insert AFTER INSERT ON analyses
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION analysis_counts_add();
CREATE TRIGGER analyses_counted_delete AFTER DELETE ON analyses
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION analysis_counts_remove();
CREATE TRIGGER analyses_counted_update AFTER UPDATE ON analyses
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION analysis_counts_move();
CREATE TRIGGER analyses_counted_truncate AFTER TRUNCATE ON analyses
  FOR EACH STATEMENT EXECUTE FUNCTION analysis_counts_clear();

-- list_analyses pages by slug in byte order, within a workspace or within one brand.
CREATE INDEX analyses_workspace_slug_c ON analyses (workspace_id, slug COLLATE "C");
CREATE INDEX analyses_brand_slug_c ON analyses (brand_id, slug COLLATE "C");
