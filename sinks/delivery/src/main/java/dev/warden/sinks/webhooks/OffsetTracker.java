package dev.warden.sinks.webhooks;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Which offsets may be committed: per partition, the lowest offset whose deliveries are not finished (or, when
 * every tracked offset is finished, the one after the last tracked). Committing it tells Kafka "everything
 * before this is done", so a crash redelivers the unfinished events and never skips one. Thread-safe:
 * {@link #track} and {@link #committable} run on the worker's thread, tickets finish on delivery threads.
 */
final class OffsetTracker {
    private final Map<TopicPartition, PartitionState> partitions = new ConcurrentHashMap<>();

    /** Registers {@code offset} of {@code tp} as dispatched but unfinished. */
    WebhookDispatcher.Ticket track(TopicPartition tp, long offset) {
        PartitionState state = partitions.computeIfAbsent(tp, k -> new PartitionState());
        state.add(offset);
        return new WebhookDispatcher.Ticket() {
            @Override
            public boolean abandoned() {
                return state.abandoned;
            }

            @Override
            public void finished() {
                state.finish(offset);
            }
        };
    }

    /** The offsets to commit: those that advanced past what was last {@link #committed}. */
    Map<TopicPartition, OffsetAndMetadata> committable() {
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        partitions.forEach((tp, state) -> {
            long next = state.committable();
            if (next > state.committed) {
                out.put(tp, new OffsetAndMetadata(next));
            }
        });
        return out;
    }

    /** Records that {@code offsets} were committed. */
    void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((tp, offset) -> {
            PartitionState state = partitions.get(tp);
            if (state != null) {
                state.committed = Math.max(state.committed, offset.offset());
            }
        });
    }

    /** Forgets {@code tps}: their unfinished events are abandoned (the partition's next owner delivers them). */
    void abandon(Collection<TopicPartition> tps) {
        for (TopicPartition tp : tps) {
            PartitionState state = partitions.remove(tp);
            if (state != null) {
                state.abandoned = true;
            }
        }
    }

    /** Dispatched events not yet finished, over every partition. */
    int inFlight() {
        return partitions.values().stream().mapToInt(PartitionState::pending).sum();
    }

    private static final class PartitionState {
        private final TreeSet<Long> pending = new TreeSet<>();
        private long next = -1;
        private volatile long committed = -1;
        private volatile boolean abandoned;

        synchronized void add(long offset) {
            pending.add(offset);
            next = Math.max(next, offset + 1);
        }

        synchronized void finish(long offset) {
            pending.remove(offset);
        }

        synchronized long committable() {
            return pending.isEmpty() ? next : pending.first();
        }

        synchronized int pending() {
            return pending.size();
        }
    }
}
