package dev.warden.api.events;

import dev.warden.pipeline.contract.AuditBatch;
import dev.warden.pipeline.contract.EventIds;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.StreamEventCodec;
import io.opentelemetry.context.Context;

/**
 * One event of {@code warden.events} as the {@link EventFeed} read it: its position ({@link EventIds}), its type
 * and its bytes, decoded only when a subscriber needs more than the type. Most events are {@code audit} events
 * that nobody on this instance reads; keeping them as bytes costs one array each instead of a tree of maps, which
 * matters for the SSE ring that holds the latest thousands.
 *
 * @param value the record's value (a stream event), or for an entry of an {@link AuditBatch} the audit entry; not
 *              to be modified
 * @param trace the trace context the record or the batch entry carried ({@link Context#root()} when none)
 */
public record FeedEvent(long position, EventType type, byte[] value, boolean batchEntry, Context trace) {

    /** An ordinary event, read at {@code offset}. */
    public static FeedEvent record(long offset, EventType type, byte[] value, Context trace) {
        return new FeedEvent(EventIds.record(offset), type, value, false, trace);
    }

    /** The {@code index}-th entry of the audit batch at {@code offset}. */
    public static FeedEvent batchEntry(long offset, int index, AuditBatch.Entry entry, Context trace) {
        return new FeedEvent(EventIds.batchEntry(offset, index), EventType.AUDIT, entry.value(), true, trace);
    }

    /** The event's id, as clients see it. */
    public String id() {
        return EventIds.id(position);
    }

    /** The event in full; {@link IllegalArgumentException} when the record is not a valid stream event. */
    public StreamEvent decode() {
        if (batchEntry) {
            return AuditBatch.event(value, id());
        }
        StreamEvent.Draft draft = StreamEventCodec.decodeDraft(value);
        if (draft.type() != type) {
            throw new IllegalArgumentException("type changed between peek and decode");
        }
        return draft.withId(id());
    }
}
