-- Holds (POST /apps/{appId}/triggers/{id}/hold, POST /admin/apps/{appId}/hold, and their release): a held trigger's
-- or app's rows stay in the outbox, are never claimed, spend no attempt and never dead-letter. A disabled trigger's
-- rows are held the same way. The claim passes over what is held (Claims), and the dispatcher's tick parks the
-- held rows out of the due order (Holds) so that claims do not walk over a held backlog: a parked row keeps its due
-- time in held_due_at and waits at next_attempt_at = 'infinity', past every "due now" scan; release puts the due
-- time back. Columns with constant or no defaults: catalogue changes only, no table rewrite.
ALTER TABLE triggers ADD COLUMN held boolean NOT NULL DEFAULT false;
ALTER TABLE outbox ADD COLUMN held_due_at timestamptz;
-- One row per held app; the claim reads them all (a handful), every claim.
CREATE TABLE app_holds (
    app_id  uuid        PRIMARY KEY,
    held_at timestamptz NOT NULL DEFAULT now(),
    held_by text
);
-- The triggers the claim passes over, read by every claim: small, however many triggers there are.
CREATE INDEX triggers_held ON triggers (app_id, id) WHERE held OR NOT enabled;
