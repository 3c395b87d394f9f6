-- A dead key stays dead (docs/contract.md#authentication point 3), whatever dates the product writes back.
--
-- A key is alive only if its creator's current, uninterrupted access began before the key was made
-- (key_status, shared/admin/sql/functions/caller.sql): greatest(joined_at, resumed_at) <= key.created_at
-- (greatest ignores NULL). Call that date the access restart. The members_access_restart trigger keeps it
-- honest whatever the product writes:
--   1. Lifting a suspension or a departure stamps the restart with the time of the change unless the
--      product dated it at or after the interruption began (a missing or earlier date is a forgotten date:
--      resumed_at = NULL after an earlier suspension had set it, the product taking NULL for "not
--      suspended"; a resumed_at before the suspension began; a joined_at before the departure).
--   2. The access restart never moves back: an update that would move it back is refused (23514), since a
--      key made between the two dates would answer again (resumed_at set back to NULL, or joined_at to an
--      earlier date, on an active member). Moving it forward is always allowed.
--
-- Not covered here (docs/data-contract.md says what the product must not do): deleting a member row and
-- inserting it again with an old joined_at (a trigger on insert cannot tell a return from a restore: a
-- dump loads api_keys before members), and the key's own dates (revoked_at cleared, expires_at pushed past
-- an expiry already reached, created_at moved).

CREATE OR REPLACE FUNCTION members_stamp_access_restart() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.left_at IS NOT NULL AND NEW.left_at IS NULL AND NEW.joined_at < OLD.left_at THEN
    NEW.joined_at := now();
  END IF;
  IF OLD.suspended_at IS NOT NULL AND NEW.suspended_at IS NULL AND (NEW.resumed_at IS NULL OR NEW.resumed_at < OLD.suspended_at) THEN
    NEW.resumed_at := now();
  END IF;
  IF greatest(NEW.joined_at, NEW.resumed_at) < greatest(OLD.joined_at, OLD.resumed_at) THEN
    RAISE EXCEPTION 'members: the access restart of user % in workspace % would move back from % to %',
        NEW.user_id, NEW.workspace_id, greatest(OLD.joined_at, OLD.resumed_at), greatest(NEW.joined_at, NEW.resumed_at)
      USING ERRCODE = 'check_violation',
            HINT = 'joined_at and resumed_at only move forward: a key made before the later date must stay dead (docs/contract.md#authentication point 3).';
  END IF;
  RETURN NEW;
END $$;

DROP TRIGGER members_access_restart ON members;
CREATE TRIGGER members_access_restart BEFORE UPDATE OF left_at, suspended_at, joined_at, resumed_at ON members
  FOR EACH ROW EXECUTE FUNCTION members_stamp_access_restart();
