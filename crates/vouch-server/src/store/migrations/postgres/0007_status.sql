-- `tasks.list` by status and `tasks.count` read an index instead of the whole table. It is
-- on an expression only those queries use (`status || ''`, the status itself), as in
-- SQLite, whose planner would take an index on the plain column for the engine's claims.
CREATE INDEX tasks_status ON tasks ((status || ''), seq);
