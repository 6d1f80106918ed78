package dev.warden.sinks.ssf;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A receiver's event stream (SSF 1.0 section 8.1): who manages it ({@code manager}: {@code agent:<id>},
 * {@code user:<id>} or {@code admin}), whose events it carries ({@code ownerUser}; empty: everyone's, the
 * administrator's streams), its audience, how it is delivered, what it asked for and whether it flows.
 *
 * @param authorizationHeader push only: what Warden sends as {@code Authorization} (stored sealed, never shown)
 */
public record SignalStream(
        String id,
        String manager,
        Optional<String> ownerUser,
        String audience,
        Method method,
        Optional<URI> endpoint,
        Optional<String> authorizationHeader,
        List<String> eventsRequested,
        Optional<String> description,
        Status status,
        Optional<String> statusReason,
        Instant createdAt,
        Instant updatedAt,
        Optional<Instant> verifiedAt) {
    public SignalStream {
        eventsRequested = List.copyOf(eventsRequested);
    }

    /** The delivery method. */
    public enum Method {
        PUSH(SignalTypes.PUSH),
        POLL(SignalTypes.POLL);

        private final String urn;

        Method(String urn) {
            this.urn = urn;
        }

        /** The method's URN as SSF names it. */
        public String urn() {
            return urn;
        }

        /** The method named by {@code urn}, if Warden offers it. */
        public static Optional<Method> ofUrn(String urn) {
            for (Method m : values()) {
                if (m.urn.equals(urn)) {
                    return Optional.of(m);
                }
            }
            return Optional.empty();
        }

        String column() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** SSF 1.0 section 8.1.2: enabled (flows), paused (held), disabled (not kept). */
    public enum Status {
        ENABLED,
        PAUSED,
        DISABLED;

        /** The wire name. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The status named {@code name}, if any. */
        public static Optional<Status> of(String name) {
            for (Status s : values()) {
                if (s.wireName().equals(name)) {
                    return Optional.of(s);
                }
            }
            return Optional.empty();
        }
    }

    /** The event types it is sent: those it requested that Warden transmits, in Warden's order. */
    public List<String> eventsDelivered() {
        return SignalTypes.SUPPORTED.stream().filter(eventsRequested::contains).toList();
    }

    /** The same stream with what a receiver may change replaced. */
    public SignalStream reconfigured(
            Optional<URI> endpoint,
            Optional<String> authorizationHeader,
            List<String> eventsRequested,
            Optional<String> description,
            Instant at) {
        return new SignalStream(
                id,
                manager,
                ownerUser,
                audience,
                method,
                endpoint,
                authorizationHeader,
                eventsRequested,
                description,
                status,
                statusReason,
                createdAt,
                at,
                verifiedAt);
    }
}
