-- The service's own role: it reads, and may only touch the last_used_at stamp of a key.
-- Run after every migration batch, so tables added later are covered too. Idempotent.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'geo_reader') THEN
    CREATE ROLE geo_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
END
$$;
GRANT USAGE ON SCHEMA public TO geo_reader;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM geo_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO geo_reader;
REVOKE SELECT ON schema_migrations FROM geo_reader;
GRANT UPDATE (last_used_at) ON api_keys TO geo_reader;
