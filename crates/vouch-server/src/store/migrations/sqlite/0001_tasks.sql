-- The tasks of every tree, their dependencies, and the events of their lifecycle.
-- Columns beside `body` are what queries filter and sort on, and the fields the engine
-- changes; `body` holds the task as stored (the columns win when read back).
CREATE TABLE tasks (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT    NOT NULL UNIQUE,
    root_id      TEXT    NOT NULL,
    parent_id    TEXT,
    user_id      TEXT,
    priority     INTEGER NOT NULL,
    status       TEXT    NOT NULL,
    waiting      INTEGER NOT NULL DEFAULT 0,
    queued       INTEGER NOT NULL DEFAULT 0,
    attempt      INTEGER NOT NULL DEFAULT 0,
    lease_until  INTEGER,
    worker       TEXT,
    cascaded     INTEGER NOT NULL DEFAULT 0,
    progress     REAL,
    result       TEXT,
    error        TEXT,
    created_at   TEXT,
    updated_at   TEXT,
    started_at   TEXT,
    completed_at TEXT,
    body         TEXT    NOT NULL
);
CREATE INDEX tasks_ready ON tasks (priority, seq) WHERE queued = 1 AND status = 'pending' AND waiting = 0;
CREATE INDEX tasks_leased ON tasks (lease_until) WHERE status = 'in_progress';
CREATE INDEX tasks_root ON tasks (root_id, seq);
CREATE INDEX tasks_parent ON tasks (parent_id);
CREATE INDEX tasks_user ON tasks (user_id, seq);

CREATE TABLE deps (
    task_id  TEXT    NOT NULL,
    dep_id   TEXT    NOT NULL,
    required INTEGER NOT NULL,
    PRIMARY KEY (task_id, dep_id)
);
CREATE INDEX deps_dep ON deps (dep_id);

CREATE TABLE events (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    root_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    data    TEXT NOT NULL
);
CREATE INDEX events_root ON events (root_id, seq);
