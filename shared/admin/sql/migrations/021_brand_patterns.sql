-- No form of fig_prompt_branded that takes an analysis's names: the reads fold the names once per call
-- (fig_name_patterns, shared/admin/sql/functions/figures.sql) and pass the patterns, and a parameter cannot
-- be renamed in place. The read functions applied after this migration, in the same migrate run, define
-- fig_prompt_branded again with the patterns.

DROP FUNCTION IF EXISTS fig_prompt_branded(boolean, text, text[]);
