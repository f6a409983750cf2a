-- When each event was written (milliseconds since the epoch), so events older than the
-- retention are swept through an index. Events written before this column are dated now.
ALTER TABLE events ADD COLUMN at_ms INTEGER;
UPDATE events SET at_ms = CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER);
CREATE INDEX events_at ON events (at_ms);
