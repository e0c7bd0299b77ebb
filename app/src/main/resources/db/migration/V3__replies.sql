-- Request/reply: the answer a target gave to a row that carries reply_to, kept for a while so the
-- caller can collect it from any node (POST …/invoke waits for it; GET /replies/{id} fetches it later).
CREATE TABLE replies (
    id         uuid        PRIMARY KEY,  -- the row's reply_to
    app_id     uuid        NOT NULL,
    outbox_id  uuid        NOT NULL,
    outcome    text        NOT NULL CHECK (outcome IN ('delivered', 'dead')),
    body       text,
    error      text,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX replies_created ON replies USING brin (created_at);

-- Serves GET /replies/{id} while the row is still on its way.
CREATE INDEX outbox_reply_to ON outbox (reply_to) WHERE reply_to IS NOT NULL;
