package dev.warden.api.events.stream;

import java.util.concurrent.atomic.LongAdder;

/** What this instance's event stream has done: events written to clients, clients dropped for not keeping up. */
public final class StreamCounters {
    private final LongAdder delivered = new LongAdder();
    private final LongAdder dropped = new LongAdder();

    void delivered() {
        delivered.increment();
    }

    void dropped() {
        dropped.increment();
    }

    /** Events written to clients (replayed and live). */
    public long deliveredCount() {
        return delivered.sum();
    }

    /** Connections closed because the client's queue overflowed or it took no byte for a heartbeat interval. */
    public long droppedCount() {
        return dropped.sum();
    }
}
