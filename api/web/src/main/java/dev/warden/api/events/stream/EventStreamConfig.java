package dev.warden.api.events.stream;

import dev.warden.pipeline.contract.EventType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Configuration of an {@link EventStream} (SPEC: Stream behaviour 9). Build with {@link #builder()}, which
 * holds every default.
 *
 * @param maxConnections     concurrent connections before new ones get 503 (default 100)
 * @param heartbeatInterval  how often {@code : heartbeat} comments are sent (default 30 s)
 * @param eventTypes         the module allow-list; no client ever receives other types (default all)
 * @param requireAuth        whether a token is required (default true)
 * @param validateToken      maps a token to its subscriber, empty when invalid
 * @param ringSize           recent events kept in memory to bridge the store's lag (default 10,000)
 * @param maxQueued          events queued for one slow client before it is disconnected (default 10,000)
 * @param storeCatchUp       how long a reconnect waits for the store to catch up with the ring (default 10 s)
 * @param maxPerSubscriber   connections one subscriber (token holder) may hold (default a tenth of
 *                           {@code maxConnections}, at least 1)
 * @param adminReserve       connections reserved for the administrator beyond {@code maxConnections} (default 5)
 * @param sessionCookies     the cookies whose token also authenticates, the first present one (a browser's
 *                           {@code EventSource} cannot send a header; same-origin pages send the cookies): the
 *                           administrator session's, then the session's
 */
public record EventStreamConfig(
        int maxConnections,
        Duration heartbeatInterval,
        Set<EventType> eventTypes,
        boolean requireAuth,
        Function<String, Optional<Subscriber>> validateToken,
        int ringSize,
        int maxQueued,
        Duration storeCatchUp,
        int maxPerSubscriber,
        int adminReserve,
        List<String> sessionCookies) {
    public EventStreamConfig {
        eventTypes = Set.copyOf(eventTypes);
        sessionCookies = List.copyOf(sessionCookies);
        if (maxConnections < 1
                || ringSize < 1
                || maxQueued < 1
                || heartbeatInterval.isNegative()
                || heartbeatInterval.isZero()
                || maxPerSubscriber < 1
                || adminReserve < 0) {
            throw new IllegalArgumentException("event stream limits must be positive");
        }
    }

    /** This configuration with {@code validate} as its token check. */
    public EventStreamConfig withTokenValidation(Function<String, Optional<Subscriber>> validate) {
        return new EventStreamConfig(
                maxConnections,
                heartbeatInterval,
                eventTypes,
                requireAuth,
                validate,
                ringSize,
                maxQueued,
                storeCatchUp,
                maxPerSubscriber,
                adminReserve,
                sessionCookies);
    }

    /** This configuration, also reading a token from the first of cookies {@code names} the request has. */
    public EventStreamConfig withSessionCookies(List<String> names) {
        return new EventStreamConfig(
                maxConnections,
                heartbeatInterval,
                eventTypes,
                requireAuth,
                validateToken,
                ringSize,
                maxQueued,
                storeCatchUp,
                maxPerSubscriber,
                adminReserve,
                names);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builder with every default. */
    public static final class Builder {
        private int maxConnections = 100;
        private Duration heartbeatInterval = Duration.ofMillis(30_000);
        private Set<EventType> eventTypes = EnumSet.allOf(EventType.class);
        private boolean requireAuth = true;
        private Function<String, Optional<Subscriber>> validateToken = token -> Optional.empty();
        private int ringSize = 10_000;
        private int maxQueued = 10_000;
        private Duration storeCatchUp = Duration.ofSeconds(10);
        private int maxPerSubscriber;
        private int adminReserve = 5;

        /** Connections one subscriber may hold; 0 (the default) means a tenth of {@code maxConnections}. */
        public Builder maxPerSubscriber(int n) {
            this.maxPerSubscriber = n;
            return this;
        }

        /** Connections reserved for the administrator beyond {@code maxConnections}. */
        public Builder adminReserve(int n) {
            this.adminReserve = n;
            return this;
        }

        public Builder maxConnections(int n) {
            this.maxConnections = n;
            return this;
        }

        public Builder heartbeatInterval(Duration d) {
            this.heartbeatInterval = d;
            return this;
        }

        public Builder eventTypes(Set<EventType> types) {
            this.eventTypes = Set.copyOf(types);
            return this;
        }

        public Builder requireAuth(boolean required) {
            this.requireAuth = required;
            return this;
        }

        public Builder validateToken(Function<String, Optional<Subscriber>> validate) {
            this.validateToken = validate;
            return this;
        }

        public Builder ringSize(int n) {
            this.ringSize = n;
            return this;
        }

        public Builder maxQueued(int n) {
            this.maxQueued = n;
            return this;
        }

        public Builder storeCatchUp(Duration d) {
            this.storeCatchUp = d;
            return this;
        }

        public EventStreamConfig build() {
            int perSubscriber = maxPerSubscriber > 0 ? maxPerSubscriber : Math.max(1, maxConnections / 10);
            return new EventStreamConfig(
                    maxConnections,
                    heartbeatInterval,
                    eventTypes,
                    requireAuth,
                    validateToken,
                    ringSize,
                    maxQueued,
                    storeCatchUp,
                    perSubscriber,
                    adminReserve,
                    List.of());
        }
    }
}
