-- Publish attempts (issue 18, docs/events.md "Audit events travel in batches"). Every publish of audit events takes
-- a number from this sequence once it holds the publisher row's lock, before it sends anything; numbers are never
-- rolled back, so a number missing between the row's last_attempt and a publisher's own is an attempt that did not
-- commit, whose batches (each names its attempt) may lie on the topic or still be on their way there.
--   last_attempt: the attempt of the last committed publish (NULL: not known, e.g. right after this migration; the
--     next publisher then reads the topic from events_offset, as every publisher did before).
CREATE SEQUENCE audit_event_publish_attempt;

ALTER TABLE audit_event_publisher ADD COLUMN last_attempt bigint;
