package dev.warden.api.events.stream;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who holds the stream's connection slots. A subscriber holds at most {@code perSubscriber} of the
 * {@code shared} slots, so one token cannot shut everyone else out; the administrator has {@code adminReserve}
 * slots of its own beyond the shared ones, so an operator can always watch. A slot is released exactly once,
 * whichever of the writer (client gone) or the heartbeat (client dead) notices first. Thread-safe.
 */
final class ConnectionSlots {
    private final int shared;
    private final int perSubscriber;
    private final int adminReserve;
    private final Map<String, Integer> held = new ConcurrentHashMap<>();
    private int sharedInUse;
    private int adminInUse;

    ConnectionSlots(int shared, int perSubscriber, int adminReserve) {
        this.shared = shared;
        this.perSubscriber = perSubscriber;
        this.adminReserve = adminReserve;
    }

    /** A slot for {@code subscriber}, or empty when it is over its share or the stream is full. */
    synchronized Optional<Slot> acquire(Subscriber subscriber) {
        if (subscriber.administrator()) {
            if (sharedInUse < shared) {
                sharedInUse++;
                return Optional.of(new Slot(subscriber.id(), false));
            }
            if (adminInUse < adminReserve) {
                adminInUse++;
                return Optional.of(new Slot(subscriber.id(), true));
            }
            return Optional.empty();
        }
        int mine = held.getOrDefault(subscriber.id(), 0);
        if (sharedInUse >= shared || mine >= perSubscriber) {
            return Optional.empty();
        }
        sharedInUse++;
        held.put(subscriber.id(), mine + 1);
        return Optional.of(new Slot(subscriber.id(), false));
    }

    /** Slots in use, the administrator's reserve included. */
    synchronized int inUse() {
        return sharedInUse + adminInUse;
    }

    private synchronized void release(Slot slot) {
        if (slot.reserved) {
            adminInUse--;
            return;
        }
        sharedInUse--;
        held.computeIfPresent(slot.holder, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** One held slot; {@link #release()} is idempotent. */
    final class Slot {
        private final String holder;
        private final boolean reserved;
        private boolean released;

        private Slot(String holder, boolean reserved) {
            this.holder = holder;
            this.reserved = reserved;
        }

        void release() {
            synchronized (ConnectionSlots.this) {
                if (released) {
                    return;
                }
                released = true;
            }
            ConnectionSlots.this.release(this);
        }
    }
}
