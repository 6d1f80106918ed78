package dev.warden.pipeline.contract;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * An event on {@code warden.events} (SPEC: Stream event).
 *
 * <p>The {@code id} is not chosen by the producer: it is the event's position in the (single-partition,
 * ordered) events topic ({@link EventIds}: {@code "R"}, or {@code "R.i"} for an entry of an {@link AuditBatch}),
 * so ids increase strictly in delivery order and a client's {@code Last-Event-ID} is an exclusive cursor. A
 * producer publishes an {@link Draft}; a consumer turns the record it reads into a {@code StreamEvent} with
 * {@link Draft#at(long)}, or {@link AuditBatch#event} for a batch entry.
 *
 * @param data the event's payload as JDK JSON values (a producer may also put values Jackson writes as JSON,
 *             such as {@link AuditEntryCodec#asJsonValue}; a consumer always reads JDK JSON values); never
 *             carries a secret
 */
public record StreamEvent(
        String id,
        EventType type,
        Instant timestamp,
        Map<String, Object> data,
        Optional<String> agentId,
        Optional<String> userId) {

    /** An event before it has a position: what producers publish. */
    public record Draft(
            EventType type,
            Instant timestamp,
            Map<String, Object> data,
            Optional<String> agentId,
            Optional<String> userId) {

        /** The key the event is published under: its subject (agent, else user, else the type). */
        public String subjectKey() {
            return agentId.or(() -> userId).orElse(type.wireName());
        }

        /** This event as read at {@code offset} of the events topic (an ordinary event, not a batch entry). */
        public StreamEvent at(long offset) {
            return withId(Long.toString(offset));
        }

        /** This event with its id ({@link EventIds}). */
        public StreamEvent withId(String id) {
            return new StreamEvent(id, type, timestamp, data, agentId, userId);
        }
    }
}
