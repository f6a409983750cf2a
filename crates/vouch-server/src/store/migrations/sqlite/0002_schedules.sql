-- When an enabled schedule is next due, in milliseconds since the epoch (NULL when the task has
-- no enabled schedule): the scheduler finds what is due through this index alone.
ALTER TABLE tasks ADD COLUMN next_run_ms INTEGER;
CREATE INDEX tasks_due ON tasks (next_run_ms) WHERE next_run_ms IS NOT NULL;
