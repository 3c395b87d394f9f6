-- Rules that the dates and groups kept by the product must obey, enforced in the store itself so that no
-- writer (the collection pipeline, the product's back office, an operator) can break them by omission.

-- 1. A dead key stays dead (docs/contract.md#authentication point 3: only a new key helps).
--
-- A key lives as long as its creator's access lasts. Access is interrupted by leaving the workspace
-- (left_at) or by a suspension (suspended_at); when it comes back (re-invitation, end of suspension) the
-- key must not: a key is alive only if its creator's current, uninterrupted access began before the key
-- was created (the rule is key_status, shared/admin/sql/functions/caller.sql), which these dates record:
--
--   joined_at   start of the current membership; set again when a person who left is re-invited
--   resumed_at  end of the last suspension (NULL: never suspended, or not since joining)
--
-- The product is expected to set both dates. If it only clears left_at or suspended_at, the trigger
-- below stamps them itself, so a forgotten date can never bring a key back. The service's role writes
-- neither table.
ALTER TABLE members ADD COLUMN resumed_at timestamptz;

CREATE FUNCTION members_stamp_access_restart() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.left_at IS NOT NULL AND NEW.left_at IS NULL AND NEW.joined_at IS NOT DISTINCT FROM OLD.joined_at THEN
    NEW.joined_at := now();
  END IF;
  IF OLD.suspended_at IS NOT NULL AND NEW.suspended_at IS NULL AND NEW.resumed_at IS NOT DISTINCT FROM OLD.resumed_at THEN
    NEW.resumed_at := now();
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER members_access_restart BEFORE UPDATE OF left_at, suspended_at ON members
  FOR EACH ROW EXECUTE FUNCTION members_stamp_access_restart();

-- 2. Group figures follow a prompt's current group.
--
-- One rule holds for the groups read and the group prompts read: every figure of a prompt counts in the
-- group it belongs to now, so a group's totals and the sum of its prompts agree. When prompts.group_id
-- changes, the prompt's per-run and per-month rows
-- (fig_run_prompt, fig_month_prompt, summed over engines) are taken out of the old group's rows and
-- added to the new group's, in the same transaction as the move.
CREATE FUNCTION fig_move_prompt(p_prompt uuid, p_from uuid, p_to uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  nil CONSTANT uuid := '00000000-0000-0000-0000-000000000000';
  k integer;
  grp uuid;
BEGIN
  FOR k, grp IN VALUES (-1, coalesce(p_from, nil)), (1, coalesce(p_to, nil)) LOOP
    INSERT INTO fig_run_group AS t
    SELECT run_id, analysis_id, day, grp,
           k * sum(answers), k * sum(extracted), k * sum(mentioned), k * sum(tracked_mentions),
           k * sum(brand_mentions), k * sum(position_sum), k * sum(position_n), k * sum(sentiment_sum),
           k * sum(sentiment_n), k * sum(citations), k * sum(owned_citations)
      FROM fig_run_prompt WHERE prompt_id = p_prompt
     GROUP BY run_id, analysis_id, day
    ON CONFLICT (run_id, group_key) DO UPDATE SET
      answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
      tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
      position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
      sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
      citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations;

    INSERT INTO fig_month_group AS t
    SELECT analysis_id, month, grp,
           k * sum(answers), k * sum(extracted), k * sum(mentioned), k * sum(tracked_mentions),
           k * sum(brand_mentions), k * sum(position_sum), k * sum(position_n), k * sum(sentiment_sum),
           k * sum(sentiment_n), k * sum(citations), k * sum(owned_citations)
      FROM fig_month_prompt WHERE prompt_id = p_prompt
     GROUP BY analysis_id, month
    ON CONFLICT (analysis_id, month, group_key) DO UPDATE SET
      answers = t.answers + excluded.answers, extracted = t.extracted + excluded.extracted, mentioned = t.mentioned + excluded.mentioned,
      tracked_mentions = t.tracked_mentions + excluded.tracked_mentions, brand_mentions = t.brand_mentions + excluded.brand_mentions,
      position_sum = t.position_sum + excluded.position_sum, position_n = t.position_n + excluded.position_n,
      sentiment_sum = t.sentiment_sum + excluded.sentiment_sum, sentiment_n = t.sentiment_n + excluded.sentiment_n,
      citations = t.citations + excluded.citations, owned_citations = t.owned_citations + excluded.owned_citations;
  END LOOP;
END $$;

CREATE FUNCTION prompts_move_group() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM fig_move_prompt(NEW.id, OLD.group_id, NEW.group_id);
  RETURN NULL;
END $$;

CREATE TRIGGER prompts_group_moved AFTER UPDATE OF group_id ON prompts
  FOR EACH ROW WHEN (OLD.group_id IS DISTINCT FROM NEW.group_id) EXECUTE FUNCTION prompts_move_group();

-- The group a run's rows are filed under is the prompt's group at extraction, kept current by the trigger
-- above: said where the next reader looks.
COMMENT ON COLUMN fig_run_group.group_key IS 'The prompt''s current group (nil UUID: none); moved by prompts_group_moved.';
COMMENT ON COLUMN fig_month_group.group_key IS 'The prompt''s current group (nil UUID: none); moved by prompts_group_moved.';

-- 3. Measurement dates stay inside the calendar the API accepts (shared/reads/windows.ts: 2000-01-01..2099-12-31),
-- so every window, comparison period and day the service derives from stored data is an ordinary date.
ALTER TABLE runs ADD CONSTRAINT runs_started_in_range
  CHECK (started_at >= '2000-01-01 00:00:00+00' AND started_at < '2100-01-01 00:00:00+00');
ALTER TABLE answers ADD CONSTRAINT answers_captured_in_range
  CHECK (captured_at >= '2000-01-01 00:00:00+00' AND captured_at < '2100-01-01 00:00:00+00');
