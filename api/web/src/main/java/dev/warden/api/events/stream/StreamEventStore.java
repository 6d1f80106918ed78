package dev.warden.api.events.stream;

import dev.warden.pipeline.contract.EventIds;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** The persisted events ({@code service_stream_events}) as the stream reads them. */
public interface StreamEventStore {
    /** The position ({@link EventIds}) the store holds every event up to, or -1 when it holds nothing yet. */
    long storedThrough();

    /** The position every event up to which retention has removed (-1 when none, or the store is empty). */
    long expiredThrough();

    /** Events with {@code after < position <= upTo}, ascending, from at most {@code limit} rows. */
    Page after(long after, long upTo, int limit);

    /** Events with {@code timestamp >= since} and {@code after < position <= upTo}, ascending, likewise. */
    Page since(Instant since, long after, long upTo, int limit);

    /**
     * One page of stored events. {@code rows} counts every row read, those that could not be decoded (and were
     * skipped) included, and {@code last} is the position of the end of the last of them: a reader pages on by
     * rows, so a bad row never ends a replay early or hides the events after it. A row is a record of
     * {@code warden.events}: one event, or an audit batch of many.
     */
    record Page(List<StreamEvent> events, int rows, long last) {
        public Page {
            events = List.copyOf(events);
        }
    }

    /** Programmatic replay: events since {@code since} of the given types (all when empty), newest first. */
    List<StreamEvent> newestSince(Instant since, Set<EventType> types, int limit);
}
