-- The catalogue read now says whether each prompt is branded: a new result type, so a new name
-- (api_prompt_catalog, functions/catalog.sql); the former one has no caller.
DROP FUNCTION IF EXISTS api_prompts(uuid);
