-- A slug and an identifier cannot be confused (docs/data-contract.md "Identifiers and slugs").
--
-- Every path of the API names an analysis by its slug or by its id (docs/contract.md#endpoints). The rule
-- that tells them apart: a reference shaped like a UUID (8-4-4-4-12 hexadecimal digits, either case, any
-- version or variant: shared/formats.ts) names an analysis by id, and only by id; anything else is a slug.
-- A slug of that shape could therefore never be named by its slug, and could read as another analysis's id:
-- the store refuses it. Workspace slugs follow the same rule, since the administration commands name a
-- workspace by slug or id the same way (docs/administration.md).
--
-- The figure aggregates file the prompts in no group under the nil UUID (migrations 003, 005, 006: the
-- group_key of fig_run_group and fig_month_group), which the group list serves as the pseudo-group `none`.
-- A prompt group whose id is the nil UUID would have its figures merged with those of `none`: the store
-- refuses that id too. Every other UUID is a valid identifier of every table.
--
-- Validated on the rows already stored (no NOT VALID): a stored slug of that shape could not be named by its
-- slug today, and a nil group already shows merged figures, so the deploy stops on them until the product
-- has renamed the slug or given the group another id. Find them with
--   SELECT id, slug FROM analyses WHERE slug ~ '^[0-9A-Fa-f]{8}-([0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$';
--   SELECT id, slug FROM workspaces WHERE slug ~ '^[0-9A-Fa-f]{8}-([0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$';
--   SELECT id FROM prompt_groups WHERE id = '00000000-0000-0000-0000-000000000000';

ALTER TABLE analyses
  ADD CONSTRAINT analyses_slug_not_uuid CHECK (slug !~ '^[0-9A-Fa-f]{8}-([0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$');

ALTER TABLE workspaces
  ADD CONSTRAINT workspaces_slug_not_uuid CHECK (slug !~ '^[0-9A-Fa-f]{8}-([0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$');

ALTER TABLE prompt_groups
  ADD CONSTRAINT prompt_groups_id_not_nil CHECK (id <> '00000000-0000-0000-0000-000000000000');
