-- Each event remembers the transaction that wrote it: `seq` is handed out at insert, so a
-- transaction can commit a higher `seq` before another commits a lower one. A stream reads only
-- events older than every transaction still in flight, and so never steps past one.
ALTER TABLE events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
