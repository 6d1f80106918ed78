package dev.warden.api.events.stream;

import dev.warden.pipeline.contract.StreamEvent;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Who is listening (the id a token maps to) and which events they may see. A subscriber never receives
 * an event {@code maySee} rejects. A subscriber limited to one agent's or one user's events says so with an
 * {@link Audience}: the stream then indexes its connection by that id and an event visits only the
 * connections of its own agent and user (plus those without an audience), not every connection.
 */
public record Subscriber(String id, Predicate<StreamEvent> maySee, Optional<Audience> audience, boolean administrator) {
    public Subscriber {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(maySee, "maySee");
        Objects.requireNonNull(audience, "audience");
    }

    /** A subscriber with its own visibility rule and an audience. */
    public Subscriber(String id, Predicate<StreamEvent> maySee, Optional<Audience> audience) {
        this(id, maySee, audience, false);
    }

    /** A subscriber with its own visibility rule and no audience (every event is offered to its rule). */
    public Subscriber(String id, Predicate<StreamEvent> maySee) {
        this(id, maySee, Optional.empty(), false);
    }

    /** A subscriber that may see every event ({@code requireAuth} off). */
    public static Subscriber everything(String id) {
        return new Subscriber(id, e -> true);
    }

    /** The administrator: sees every event and may use the slots reserved for it when the stream is full. */
    public static Subscriber administrator(String id) {
        return new Subscriber(id, e -> true, Optional.empty(), true);
    }

    /** A subscriber that sees the events about one agent ({@code agentId} of the event). */
    public static Subscriber ofAgent(String id, String agentId) {
        return new Subscriber(
                id,
                e -> e.agentId().filter(agentId::equals).isPresent(),
                Optional.of(new Audience(Audience.Field.AGENT, agentId)));
    }

    /** A subscriber that sees the events of one user ({@code userId} of the event). */
    public static Subscriber ofUser(String id, String userId) {
        return new Subscriber(
                id,
                e -> e.userId().filter(userId::equals).isPresent(),
                Optional.of(new Audience(Audience.Field.USER, userId)));
    }

    /** The one agent or user whose events a subscriber is limited to. */
    public record Audience(Field field, String value) {
        /** The event field an audience matches. */
        public enum Field {
            AGENT,
            USER
        }
    }
}
