package dev.warden.api.events.stream;

import dev.warden.pipeline.contract.StreamEvent;
import java.util.function.Predicate;

/**
 * Who is listening (the id a token maps to) and which events they may see. A subscriber never receives
 * an event {@code maySee} rejects.
 */
public record Subscriber(String id, Predicate<StreamEvent> maySee) {
    /** A subscriber that may see every event (admins; {@code requireAuth} off). */
    public static Subscriber everything(String id) {
        return new Subscriber(id, e -> true);
    }
}
