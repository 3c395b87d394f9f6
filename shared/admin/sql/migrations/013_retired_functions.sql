-- No read function remains that the service does not call. Every read function is defined once, in
-- shared/admin/sql/functions/, and applied whole after the migrations by every migrate run; these are
-- the ones no release calls any more (IF EXISTS: a store created from these migrations never had them).
--   api_identity     the caller statement is api_caller
--   api_analyses     list_analyses pages with api_analyses_page
--   api_run          get_run is one call of api_run_read
--   api_run_changes  what changed since the previous run is fig_run_changes, called by api_run_read

DROP FUNCTION IF EXISTS api_identity(text, integer);
DROP FUNCTION IF EXISTS api_analyses(uuid[], text, integer);
DROP FUNCTION IF EXISTS api_run(uuid, uuid);
DROP FUNCTION IF EXISTS api_run_changes(uuid, uuid);
