package dev.warden.authorizer.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PolledBatchEndsTest {
    private static final TopicPartition P0 = new TopicPartition("requests", 0);
    private static final TopicPartition P1 = new TopicPartition("requests", 1);

    private static ConsumerRecord<byte[], byte[]> at(TopicPartition tp, long offset) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, new byte[0], new byte[0]);
    }

    @Test
    void theLastRecordOfEachPartitionInThisThreadsLatestPollIsTheLast() {
        try (PolledBatchEnds interceptor = new PolledBatchEnds()) {
            ConsumerRecords<byte[], byte[]> polled = new ConsumerRecords<>(
                    Map.of(P0, List.of(at(P0, 7), at(P0, 8), at(P0, 9)), P1, List.of(at(P1, 3))), Map.of());
            assertThat(interceptor.onConsume(polled)).as("passed through").isSameAs(polled);

            assertThat(PolledBatchEnds.isLastPolled(P0, 8)).isFalse();
            assertThat(PolledBatchEnds.isLastPolled(P0, 9)).isTrue();
            assertThat(PolledBatchEnds.isLastPolled(P1, 3)).isTrue();

            interceptor.onConsume(new ConsumerRecords<>(Map.of(P0, List.of(at(P0, 10), at(P0, 11))), Map.of()));
            assertThat(PolledBatchEnds.isLastPolled(P0, 10))
                    .as("a later poll moves the end")
                    .isFalse();
            assertThat(PolledBatchEnds.isLastPolled(P1, 3))
                    .as("a partition the poll did not bring keeps its end")
                    .isTrue();
        }
    }

    @Test
    void aPartitionThisThreadNeverPolledCountsEveryRecordAsTheLast() throws Exception {
        try (PolledBatchEnds interceptor = new PolledBatchEnds()) {
            interceptor.onConsume(new ConsumerRecords<>(Map.of(P0, List.of(at(P0, 1), at(P0, 2))), Map.of()));
            assertThat(CompletableFuture.supplyAsync(() -> PolledBatchEnds.isLastPolled(P0, 1))
                            .get())
                    .as("another thread's poll says nothing here")
                    .isTrue();
            assertThat(PolledBatchEnds.isLastPolled(P0, 1)).isFalse();
        }
    }
}
