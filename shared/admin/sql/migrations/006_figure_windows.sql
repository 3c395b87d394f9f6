-- The types a figure read's window travels in, between the functions of the figure reads
-- (shared/admin/sql/functions/figures.sql; docs/decisions.md#decisions-the-contract-leaves-open for what
-- a window and its comparison period are).
--   fig_run     one collection run as a window sees it, with the UTC day it started;
--   fig_window  a window resolved against an analysis's collections: its last finished collection
--               (anchor) and the one before, the current period and the comparison period (a kind, first
--               and last day, and the run for a run period).

CREATE TYPE fig_run AS (id uuid, state text, started_at timestamptz, collected_at timestamptz, finished_at timestamptz, day date);

CREATE TYPE fig_window AS (
  name text,          -- last-run, 7d, 14d, 30d, 90d, all, or custom
  anchor fig_run,     -- the last finished collection (NULL: never collected)
  before fig_run,     -- the one before it
  first_day date,     -- day of the first finished collection
  cur_kind text,      -- run, days or all; NULL when never collected under a named window
  cur_from date, cur_to date, cur_run uuid,
  prev_kind text,     -- the comparison period; NULL when there is none
  prev_from date, prev_to date, prev_run uuid);
