-- `tasks.list` by status and `tasks.count` read an index instead of the whole table.
-- The index is on an expression only those two queries use (`status || ''`, the status
-- itself): SQLite takes an index on the plain column for the claim of ready tasks (a search
-- of every pending task and a sort, over the partial ready index), even with statistics
-- that say a status matches a fifth of the store; on this expression no engine query can.
CREATE INDEX tasks_status ON tasks ((status || ''), seq);
