-- No read function remains that the service does not call: the segment functions take the analysis's
-- prompts by kind (fig_prompt_kinds, shared/admin/sql/functions/figures.sql), so that a read asking for
-- several of them classifies its prompts once; these are their forms that classified the prompts
-- themselves. The read functions applied after this migration, in the same migrate run, no longer call
-- them.

DROP FUNCTION IF EXISTS fig_branded_sums(uuid, fig_window);
DROP FUNCTION IF EXISTS fig_branded_brands(uuid, fig_window);
