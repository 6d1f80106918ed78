package dev.warden.api.events.stream;

import dev.warden.pipeline.contract.StreamEvent;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The live connections of a stream, indexed by their subscriber's {@link Subscriber.Audience}: an event is
 * offered to the connections of its agent, of its user and to those without an audience, never to the rest.
 * With thousands of subscribers that each see one agent's events, fan-out costs what the event's own
 * audience costs, not a visit to every connection. Thread-safe.
 */
final class LiveConnections {
    private final Set<SseConnection> unrouted = ConcurrentHashMap.newKeySet();
    private final Map<String, Set<SseConnection>> byAgent = new ConcurrentHashMap<>();
    private final Map<String, Set<SseConnection>> byUser = new ConcurrentHashMap<>();

    void add(SseConnection connection) {
        Optional<Subscriber.Audience> audience = connection.audience();
        if (audience.isEmpty()) {
            unrouted.add(connection);
            return;
        }
        index(audience.get()).compute(audience.get().value(), (k, set) -> {
            Set<SseConnection> s = set == null ? ConcurrentHashMap.newKeySet() : set;
            s.add(connection);
            return s;
        });
    }

    void remove(SseConnection connection) {
        Optional<Subscriber.Audience> audience = connection.audience();
        if (audience.isEmpty()) {
            unrouted.remove(connection);
            return;
        }
        index(audience.get()).computeIfPresent(audience.get().value(), (k, set) -> {
            set.remove(connection);
            return set.isEmpty() ? null : set;
        });
    }

    /** Offers {@code event} to every connection that may be interested (each decides with its own rule). */
    void offer(StreamEvent event) {
        for (SseConnection connection : unrouted) {
            connection.offer(event);
        }
        event.agentId().map(byAgent::get).ifPresent(set -> set.forEach(c -> c.offer(event)));
        event.userId().map(byUser::get).ifPresent(set -> set.forEach(c -> c.offer(event)));
    }

    /** Whether no connection is live (then no event needs decoding). */
    boolean isEmpty() {
        return unrouted.isEmpty() && byAgent.isEmpty() && byUser.isEmpty();
    }

    void forEach(Consumer<SseConnection> action) {
        unrouted.forEach(action);
        byAgent.values().forEach(set -> set.forEach(action));
        byUser.values().forEach(set -> set.forEach(action));
    }

    void clear() {
        unrouted.clear();
        byAgent.clear();
        byUser.clear();
    }

    private Map<String, Set<SseConnection>> index(Subscriber.Audience audience) {
        return audience.field() == Subscriber.Audience.Field.AGENT ? byAgent : byUser;
    }
}
