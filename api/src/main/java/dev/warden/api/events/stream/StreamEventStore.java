package dev.warden.api.events.stream;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** The persisted events ({@code service_stream_events}) as the stream reads them. */
public interface StreamEventStore {
    /** The highest offset the store holds everything up to, or -1 when it holds nothing yet. */
    long storedThrough();

    /** The smallest id still retained, or -1 when empty. */
    long oldestRetained();

    /** Events with {@code after < id <= upTo}, ascending, from at most {@code limit} rows. */
    Page after(long after, long upTo, int limit);

    /** Events with {@code timestamp >= since} and {@code id <= upTo}, ascending from {@code afterId}, likewise. */
    Page since(Instant since, long afterId, long upTo, int limit);

    /**
     * One page of stored events. {@code rows} counts every row read, those that could not be decoded (and were
     * skipped) included, and {@code lastId} is the id of the last of them: a reader pages on by rows, so a bad
     * row never ends a replay early or hides the events after it.
     */
    record Page(List<StreamEvent> events, int rows, long lastId) {
        public Page {
            events = List.copyOf(events);
        }
    }

    /** Programmatic replay: events since {@code since} of the given types (all when empty), newest first. */
    List<StreamEvent> newestSince(Instant since, Set<EventType> types, int limit);
}
