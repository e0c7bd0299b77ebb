-- REST API support: idempotency keys and the cluster-wide dispatcher switch.

-- The first answer to a POST carrying an Idempotency-Key, replayed for every retry of it. The key
-- row is written in the same transaction as the rows the request creates, so two concurrent
-- requests with one key serialize on it: the second waits, then finds the first's answer.
CREATE TABLE idempotency_keys (
    principal      text        NOT NULL,
    key            text        NOT NULL,
    -- what the key was first used for (method, path and a hash of the body): reuse for another
    -- request is refused instead of answering with an unrelated response
    fingerprint    text        NOT NULL,
    status         integer,
    location       text,
    body           text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (principal, key)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys USING brin (created_at);

-- One row: whether dispatching is paused on every node (POST /admin/dispatcher/pause).
CREATE TABLE dispatcher_state (
    singleton  boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    paused     boolean     NOT NULL DEFAULT false,
    changed_by text,
    changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO dispatcher_state (singleton, paused) VALUES (true, false);
