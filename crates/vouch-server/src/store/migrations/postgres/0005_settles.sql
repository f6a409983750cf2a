-- Completions not yet counted against a dependent that waits for many tasks (a fan-in root):
-- written by every worker without touching the dependent's row, and counted into its `waiting`
-- in batches, so thousands of completions do not all queue on one row.
CREATE TABLE settles (
    seq     BIGSERIAL PRIMARY KEY,
    task_id TEXT    NOT NULL,
    n       BIGINT  NOT NULL
);
CREATE INDEX settles_task ON settles (task_id);
