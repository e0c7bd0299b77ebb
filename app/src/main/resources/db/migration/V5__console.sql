-- Ops console: who did what through the admin API, which dispatcher nodes are alive, and the
-- indexes the console's pages read through.

-- One row per admin action (replay, bulk replay, discard, pause, resume, trigger changes), written
-- in the transaction of the action itself where the action runs in one, so an action and its
-- record commit or roll back together.
CREATE TABLE admin_audit (
    id         bigserial   PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    principal  text        NOT NULL,
    -- what was done, e.g. dead-letter.replay, dead-letters.bulk-replay, dispatcher.pause, trigger.create
    action     text        NOT NULL,
    -- the rows or triggers it touched (bounded: bulk actions touch at most one page of rows)
    target_ids uuid[]      NOT NULL DEFAULT '{}',
    -- the filter of a bulk action, as the caller gave it
    filter     jsonb,
    affected   integer     NOT NULL DEFAULT 0
);

-- The audit page is read newest first by id; the row lookup finds a row's entries by target id.
CREATE INDEX admin_audit_targets ON admin_audit USING gin (target_ids);

-- Every dispatcher node, as its poll timer last reported (at most about once a second, outside
-- the claim path). Rows of nodes that stopped for good are removed after a day.
CREATE TABLE dispatcher_nodes (
    node         text        PRIMARY KEY,
    started_at   timestamptz NOT NULL,
    last_tick_at timestamptz NOT NULL,
    in_flight    integer     NOT NULL,
    paused       boolean     NOT NULL,
    poll_ms      bigint      NOT NULL
);

-- The dead-letter browser pages all apps newest first; dead_letters_app serves one app's pages.
CREATE INDEX dead_letters_dead_at ON dead_letters (dead_at DESC, id DESC);

-- The admin-wide trigger list pages newest first.
CREATE INDEX triggers_created ON triggers (created_at DESC, id DESC);
