package dev.warden.runtime.consumer;

import java.time.Instant;
import java.util.Optional;

/**
 * What an operator asked of a sink worker: to pause, or to replay from a time. The worker reads it between polls
 * (implementations cache their reads); each replay has a generation, so that a worker applies each one once.
 */
public interface SinkControl {
    /** The state asked for. */
    record State(boolean paused, long replayGeneration, Optional<Instant> replayFrom) {
        /** Running, nothing to replay. */
        public static final State RUNNING = new State(false, 0, Optional.empty());
    }

    /** The state now; never throws (a failed read keeps the last known state). */
    State state();

    /** No control: always running. */
    SinkControl NONE = () -> State.RUNNING;
}
