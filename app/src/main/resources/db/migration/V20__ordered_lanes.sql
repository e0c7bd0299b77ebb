-- Ordered lanes: rows of one trigger (or, for rows without one, of one app) that carry the same ordering_key are
-- delivered one at a time, in enqueue order. The claim takes a keyed row only when no earlier row of its lane is
-- still in the outbox (pending, retrying, held or in flight) and the lane is not blocked (Claims). lane_seq is that
-- order: drawn from one sequence by every insert, so a lane's rows written one after another come out in that order.
-- Columns without defaults first, then the default: no table rewrite, and rows written before have no key.
CREATE SEQUENCE outbox_lane_seq;
ALTER TABLE outbox ADD COLUMN ordering_key text, ADD COLUMN lane_seq bigint, ADD COLUMN lane_due_at timestamptz;
ALTER TABLE outbox ALTER COLUMN lane_seq SET DEFAULT nextval('outbox_lane_seq');

-- A row behind another of its lane waits out of the due order, as a held row does: its due time in lane_due_at,
-- next_attempt_at = 'infinity', past every "due now" scan, so claims never walk a lane's waiting rows. When a lane's
-- head leaves the outbox (delivered, dead-lettered, cancelled, discarded: any DELETE), its next row comes due. Both
-- are triggers, so every writer and every way out is covered by one mechanism; rows without a key never run them.
-- The insert locks the row before it (KEY SHARE): a finish deleting that row waits for the insert's commit, and its
-- trigger's statement (a new snapshot) then sees the row that came in behind, so no lane is left without a head.
CREATE FUNCTION outbox_lane_enter() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM outbox e
    WHERE coalesce(e.trigger_id, e.app_id) = coalesce(NEW.trigger_id, NEW.app_id)
      AND e.ordering_key = NEW.ordering_key AND e.lane_seq < NEW.lane_seq
    ORDER BY coalesce(e.trigger_id, e.app_id) DESC, e.ordering_key DESC, e.lane_seq DESC
    LIMIT 1
    FOR KEY SHARE;
    IF FOUND THEN
        NEW.lane_due_at := NEW.next_attempt_at;
        NEW.next_attempt_at := 'infinity';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER outbox_lane_enter BEFORE INSERT ON outbox
    FOR EACH ROW WHEN (NEW.ordering_key IS NOT NULL) EXECUTE FUNCTION outbox_lane_enter();

CREATE FUNCTION outbox_lane_leave() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- the lane's first row left, if it waits: due at its own time, or now (in front of every claimer's cursor)
    UPDATE outbox o SET next_attempt_at = greatest(o.lane_due_at, now()), lane_due_at = NULL
    WHERE o.id = (SELECT e.id FROM outbox e
                  WHERE coalesce(e.trigger_id, e.app_id) = coalesce(OLD.trigger_id, OLD.app_id)
                    AND e.ordering_key = OLD.ordering_key
                  ORDER BY coalesce(e.trigger_id, e.app_id), e.ordering_key, e.lane_seq
                  LIMIT 1)
      AND o.lane_due_at IS NOT NULL;
    RETURN NULL;
END
$$;
-- a waiting row that leaves (cancelled) was no head: nothing comes due behind it
CREATE TRIGGER outbox_lane_leave AFTER DELETE ON outbox
    FOR EACH ROW WHEN (OLD.ordering_key IS NOT NULL AND OLD.lane_due_at IS NULL) EXECUTE FUNCTION outbox_lane_leave();
-- A dead letter keeps its lane and place: replayed, it is again the head of its lane.
ALTER TABLE dead_letters ADD COLUMN ordering_key text, ADD COLUMN lane_seq bigint;
-- 'continue': a lane whose head dead-letters moves on to its next row; 'block': it waits until an operator skips
-- the dead head or replays it (lane_blocks).
ALTER TABLE triggers ADD COLUMN on_dead_letter text NOT NULL DEFAULT 'continue'
    CHECK (on_dead_letter IN ('continue', 'block'));
-- The lanes of 'block' triggers whose head dead-lettered. The block goes with its dead letter: replayed, discarded or
-- pruned, the lane flows again; skipping deletes only the block.
CREATE TABLE lane_blocks (
    lane           uuid        NOT NULL,              -- trigger id (app id for rows without a trigger)
    ordering_key   text        NOT NULL,
    app_id         uuid        NOT NULL,
    dead_letter_id uuid        NOT NULL REFERENCES dead_letters (id) ON DELETE CASCADE,
    blocked_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (lane, ordering_key)
);
CREATE INDEX lane_blocks_dead_letter ON lane_blocks (dead_letter_id);
CREATE INDEX lane_blocks_app ON lane_blocks (app_id);
