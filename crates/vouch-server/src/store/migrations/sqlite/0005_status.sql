-- tasks.list and tasks.count by status read through an index, however many tasks are stored.
CREATE INDEX tasks_status ON tasks (status, seq);
