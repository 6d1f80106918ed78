package dev.warden.sinks.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {
    private static final TopicPartition TP = new TopicPartition("events", 0);

    private final OffsetTracker tracker = new OffsetTracker();

    @Test
    void theCommitStopsAtTheFirstUnfinishedEvent() {
        WebhookDispatcher.Ticket t5 = tracker.track(TP, 5);
        WebhookDispatcher.Ticket t6 = tracker.track(TP, 6);
        WebhookDispatcher.Ticket t7 = tracker.track(TP, 7);

        t6.finished();
        t7.finished();
        assertThat(tracker.committable()).containsExactly(Map.entry(TP, new OffsetAndMetadata(5)));

        t5.finished();
        assertThat(tracker.committable()).containsExactly(Map.entry(TP, new OffsetAndMetadata(8)));
        assertThat(tracker.inFlight()).isZero();
    }

    @Test
    void nothingIsCommittableTwiceOrBeforeAnyEvent() {
        assertThat(tracker.committable()).isEmpty();
        tracker.track(TP, 0).finished();
        Map<TopicPartition, OffsetAndMetadata> ready = tracker.committable();
        tracker.committed(ready);

        assertThat(ready).containsExactly(Map.entry(TP, new OffsetAndMetadata(1)));
        assertThat(tracker.committable()).isEmpty();
    }

    @Test
    void abandonedPartitionsAreForgottenAndTheirTicketsSaySo() {
        WebhookDispatcher.Ticket ticket = tracker.track(TP, 3);

        tracker.abandon(List.of(TP));
        ticket.finished();

        assertThat(ticket.abandoned()).isTrue();
        assertThat(tracker.committable()).isEmpty();
        assertThat(tracker.inFlight()).isZero();
    }
}
