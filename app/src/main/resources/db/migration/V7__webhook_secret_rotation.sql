-- Webhook secret rotation: the secret a rotation replaced keeps signing beside the new one until
-- previous_secret_expires_at (on the database clock), so receivers can switch without missing a
-- delivery. Both columns are set together by the rotation and read by the dispatcher's claim.
-- Adding nullable columns without a default changes only the catalogue: the lock is brief.
ALTER TABLE triggers
    ADD COLUMN previous_secret text,
    ADD COLUMN previous_secret_expires_at timestamptz,
    ADD CONSTRAINT triggers_previous_secret_expires
        CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL));
