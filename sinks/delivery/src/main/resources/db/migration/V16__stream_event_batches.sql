-- An audit batch (many `audit` events in one record of warden.events, docs/events.md) is stored as one row:
-- type 'audit', data '{}', and the batch's bytes here; replay expands it into its events, ids "<id>.<index>".
ALTER TABLE service_stream_events ADD COLUMN batch bytea;
