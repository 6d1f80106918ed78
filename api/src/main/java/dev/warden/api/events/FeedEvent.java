package dev.warden.api.events;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import io.opentelemetry.context.Context;

/**
 * One record of {@code warden.events} as the {@link EventFeed} read it: its position (the event's id), its
 * type (read from the first token) and its bytes, decoded only when a subscriber needs more than the type.
 * Most events are {@code audit} events that nobody on this instance reads; keeping them as bytes costs one
 * array each instead of a tree of maps, which matters for the SSE ring that holds the latest thousands.
 *
 * @param value the record's value, not to be modified
 * @param trace the trace context the record carried ({@link Context#root()} when none)
 */
public record FeedEvent(long position, EventType type, byte[] value, Context trace) {

    /** The event in full; {@link IllegalArgumentException} when the record is not a valid stream event. */
    public StreamEvent decode() {
        StreamEvent.Draft draft = StreamEventCodec.decodeDraft(value);
        if (draft.type() != type) {
            throw new IllegalArgumentException("type changed between peek and decode");
        }
        return draft.at(position);
    }
}
