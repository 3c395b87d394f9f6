-- The figure reads' functions that no release calls: each was kept beside its replacement while a
-- deployment rolled out, and every release since calls the replacement, defined in
-- shared/admin/sql/functions/figures.sql: api_fig_headline and api_fig_engines (for api_fig_metrics),
-- api_fig_brands (for api_fig_competitors), api_fig_days (for api_fig_series and api_fig_daily). IF EXISTS:
-- a store created from these migrations and that file after this one never had them.

DROP FUNCTION IF EXISTS api_fig_metrics(uuid, text, date, date);
DROP FUNCTION IF EXISTS api_fig_competitors(uuid, text, date, date);
DROP FUNCTION IF EXISTS api_fig_series(uuid, text, date, date);
DROP FUNCTION IF EXISTS api_fig_daily(uuid, text, date, date, boolean);
