-- The catalogue read says whether each prompt is branded. Its result type is new, so the read is a new
-- function (api_prompt_catalog, functions/catalog.sql), and api_prompts, whose result lacked it and which
-- nothing calls, is dropped.
DROP FUNCTION IF EXISTS api_prompts(uuid);
