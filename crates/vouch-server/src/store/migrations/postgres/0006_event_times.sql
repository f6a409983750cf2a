-- When each event was written (milliseconds since the epoch), so events older than the
-- retention are swept through an index. Events written before this column are dated now.
ALTER TABLE events ADD COLUMN at_ms BIGINT;
UPDATE events SET at_ms = (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT;
CREATE INDEX events_at ON events (at_ms);
