-- Push notifications: where a tree's events go (one target per root, replaced when the tree is
-- executed again with another), how far delivery has come, which worker delivers it now (a
-- lease, so one worker sends each event), and every delivery's outcome.
CREATE TABLE push_targets (
    root_id     TEXT    PRIMARY KEY,
    url         TEXT    NOT NULL,
    method      TEXT    NOT NULL,
    headers     TEXT    NOT NULL,
    protocol    TEXT,
    after_seq   INTEGER NOT NULL,
    owner       TEXT,
    lease_until INTEGER NOT NULL DEFAULT 0,
    delivered   INTEGER NOT NULL DEFAULT 0,
    failed      INTEGER NOT NULL DEFAULT 0,
    finished    INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT    NOT NULL
);
CREATE INDEX push_open ON push_targets (lease_until) WHERE finished = 0;

CREATE TABLE push_deliveries (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    root_id  TEXT    NOT NULL,
    event_id INTEGER NOT NULL,
    task_id  TEXT    NOT NULL,
    kind     TEXT    NOT NULL,
    attempts INTEGER NOT NULL,
    status   INTEGER,
    error    TEXT,
    ok       INTEGER NOT NULL,
    at       TEXT    NOT NULL
);
CREATE INDEX push_deliveries_root ON push_deliveries (root_id, seq);
