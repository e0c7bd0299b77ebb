-- Trigger Outbox schema, version 1: the outbox itself, triggers, dead letters and delivery history.

-- One row per pending delivery. Rows leave this table when delivered (to delivery_history) or
-- dead-lettered (to dead_letters); everything here is still to do or in flight.
CREATE TABLE outbox (
    id                uuid        PRIMARY KEY,
    app_id            uuid        NOT NULL,
    -- wire name of the source kind; deliberately not constrained, so a row written by a newer
    -- node (or by hand) with a kind this node does not know is dead-lettered, not rejected or lost
    source_kind       text        NOT NULL,
    trigger_id        uuid,
    script_id         uuid,
    reply_to          uuid,
    payload           jsonb       NOT NULL,
    origin_principal  text,
    trigger_depth     integer     NOT NULL DEFAULT 0 CHECK (trigger_depth >= 0),
    root_execution_id uuid,
    -- attempts are counted when a row is claimed, so a row that kills its node still ends
    attempt_count     integer     NOT NULL DEFAULT 0,
    -- per-row limit (invoke rows use 1); NULL means the trigger's, then the configured default
    max_attempts      integer     CHECK (max_attempts BETWEEN 1 AND 1000),
    next_attempt_at   timestamptz NOT NULL DEFAULT now(),
    claimed_at        timestamptz,
    claimed_by        text,
    lease_expires_at  timestamptz,
    -- fresh per claim; completion, reschedule and dead-letter must present it (fencing)
    claim_token       uuid,
    last_error        text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    CHECK ((claim_token IS NULL) = (lease_expires_at IS NULL))
);

-- Serves the claim: WHERE claim_token IS NULL AND next_attempt_at <= now() ORDER BY next_attempt_at.
-- Rows in flight are not in it, so a claim never walks over them.
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE claim_token IS NULL;

-- Serves lease recovery: rows whose claim expired.
CREATE INDEX outbox_leases ON outbox (lease_expires_at) WHERE claim_token IS NOT NULL;

CREATE INDEX outbox_app ON outbox (app_id);

CREATE TABLE triggers (
    id           uuid        PRIMARY KEY,
    app_id       uuid        NOT NULL,
    source_kind  text        NOT NULL,
    target_type  text        NOT NULL CHECK (target_type IN ('webhook', 'handler', 'jms')),
    -- webhook URL, handler name or JMS destination, by target_type
    target       text        NOT NULL,
    -- webhook signing secret (Standard Webhooks "whsec_..."), NULL for other targets
    secret       text,
    script_id    uuid,
    max_attempts integer     CHECK (max_attempts BETWEEN 1 AND 1000),
    enabled      boolean     NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Serves fan-out: the enabled triggers of (app, source kind).
CREATE INDEX triggers_fanout ON triggers (app_id, source_kind) WHERE enabled;

-- Rows that could not be delivered, with why. Kept until replayed or discarded.
CREATE TABLE dead_letters (
    id                uuid        PRIMARY KEY,  -- the outbox row's id
    app_id            uuid        NOT NULL,
    source_kind       text        NOT NULL,
    trigger_id        uuid,
    script_id         uuid,
    reply_to          uuid,
    payload           jsonb       NOT NULL,
    origin_principal  text,
    trigger_depth     integer     NOT NULL,
    root_execution_id uuid,
    attempt_count     integer     NOT NULL,
    last_error        text        NOT NULL,
    created_at        timestamptz NOT NULL,
    dead_at           timestamptz NOT NULL DEFAULT now(),
    dead_by           text
);

CREATE INDEX dead_letters_app ON dead_letters (app_id, dead_at DESC, id);

-- Where each finished row ended, so "was my event delivered?" has an answer after the row is
-- gone. Pruned after outbox.history.retention-hours.
CREATE TABLE delivery_history (
    outbox_id         uuid        PRIMARY KEY,
    app_id            uuid        NOT NULL,
    source_kind       text        NOT NULL,
    trigger_id        uuid,
    root_execution_id uuid,
    trigger_depth     integer     NOT NULL,
    outcome           text        NOT NULL CHECK (outcome IN ('delivered', 'dead')),
    attempt_count     integer     NOT NULL,
    last_error        text,
    created_at        timestamptz NOT NULL,
    finished_at       timestamptz NOT NULL DEFAULT now(),
    finished_by       text
);

-- Append-only in time order: a BRIN index serves the retention prune at almost no write cost.
CREATE INDEX delivery_history_finished ON delivery_history USING brin (finished_at);
