-- The series' function before it took the bound on days split by kind of prompt: every release since calls
-- fig_series(uuid, fig_window, boolean, integer), defined in shared/admin/sql/functions/figures.sql (IF
-- EXISTS: a store created from these migrations and that file never had the three-argument form).

DROP FUNCTION IF EXISTS fig_series(uuid, fig_window, boolean);
