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

    /** Events with {@code after < id <= upTo}, ascending, at most {@code limit}. */
    List<StreamEvent> after(long after, long upTo, int limit);

    /** Events with {@code timestamp >= since} and {@code id <= upTo}, ascending from {@code afterId}, at most {@code limit}. */
    List<StreamEvent> since(Instant since, long afterId, long upTo, int limit);

    /** Programmatic replay: events since {@code since} of the given types (all when empty), newest first. */
    List<StreamEvent> newestSince(Instant since, Set<EventType> types, int limit);
}
