package dev.warden.pipeline.contract;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * An event on {@code warden.events} (SPEC: Stream event).
 *
 * <p>The {@code id} is not chosen by the producer: it is the event's position in the (single-partition,
 * ordered) events topic, so ids increase strictly in delivery order and a client's {@code Last-Event-ID}
 * is an exclusive cursor. A producer publishes an {@link Draft}; a consumer turns the record it reads
 * into a {@code StreamEvent} with {@link Draft#at(long)}.
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

        /** This event as read at {@code offset} of the events topic. */
        public StreamEvent at(long offset) {
            return new StreamEvent(Long.toString(offset), type, timestamp, data, agentId, userId);
        }
    }
}
