package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.runtime.consumer.BatchWriter;
import dev.warden.runtime.consumer.PoisonedBatchException;
import dev.warden.runtime.consumer.SinkCounters;
import dev.warden.sinks.SinkTables;
import dev.warden.testing.SharedInfra;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A durable sink whose destination takes a batch in several requests (CloudEvents' structured mode, one POST an
 * entry) and fails part-way: the position past the entries that arrived is stored on a real PostgreSQL, so the
 * retry, read again from the stored position as the worker does, sends each entry once.
 */
class DurableSinkWriterIT {
    static SharedInfra infra;

    @RegisterExtension
    static final BeforeAllCallback SHARED = context -> infra = SharedInfra.get(context);

    private static final String TOPIC = "warden.audit";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    @Test
    void aBatchThatFailsPartWayIsRetriedFromTheFirstEntryThatDidNotArrive() throws Exception {
        // Five entries and an undecodable record among the first three
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            records.add(record(100 + records.size(), "aud_" + i));
            if (i == 1) {
                records.add(new ConsumerRecord<>(
                        TOPIC, 0, 100 + records.size(), "x", "not an entry".getBytes(StandardCharsets.UTF_8)));
            }
        }
        try (SinkTables db = SinkTables.create(infra.jdbcUrl());
                TestReceiver receiver = TestReceiver.start();
                AuditSink sink = cloudEvents(receiver)) {
            DurableSinkWriter writer =
                    new DurableSinkWriter(sink, db.dataSource(), TOPIC, new SinkCounters(), Duration.ofSeconds(1));
            // aud_0, aud_1 and aud_2 arrive, aud_3 meets a 503
            receiver.thenAnswer(202, "").thenAnswer(202, "").thenAnswer(202, "").thenAnswer(503, "busy");

            assertThatThrownBy(() -> store(writer, records))
                    .isInstanceOf(AuditSink.SinkException.class)
                    .hasMessageContaining("delivered 3 of 5");
            // Stored past aud_2 (offset 103), with the undecodable record before it dead-lettered
            assertThat(writer.storedOffsets(List.of(P0))).containsEntry(P0, 104L);
            assertThat(deadLetteredOffsets(db)).containsExactly(102L);

            // The retry reads from the stored position, as the worker rewinds to it
            store(writer, from(records, writer.storedOffsets(List.of(P0)).get(P0)));
            assertThat(writer.storedOffsets(List.of(P0))).containsEntry(P0, 106L);
            assertThat(arrivedIds(receiver))
                    .as("every entry arrived once: aud_3 was tried twice, the others once")
                    .containsExactly("aud_0", "aud_1", "aud_2", "aud_3", "aud_3", "aud_4");
            assertThat(deadLetteredOffsets(db)).containsExactly(102L);
        }
    }

    @Test
    void anEntryRefusedPartWayIsIsolatedFromTheStoredPositionWithoutSendingTheHeadAgain() throws Exception {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            records.add(record(200 + i, "aud_" + i));
        }
        try (SinkTables db = SinkTables.create(infra.jdbcUrl());
                TestReceiver receiver = TestReceiver.start();
                AuditSink sink = cloudEvents(receiver)) {
            DurableSinkWriter writer =
                    new DurableSinkWriter(sink, db.dataSource(), TOPIC, new SinkCounters(), Duration.ofSeconds(1));
            // aud_0 arrives, aud_1 is refused for its content (and then again)
            receiver.thenAnswer(202, "").thenAnswer(422, "no").thenAnswer(422, "no");

            // Not a poisoned batch yet: the head is recorded and the rest is read again
            assertThatThrownBy(() -> store(writer, records))
                    .isInstanceOf(AuditSink.SinkException.class)
                    .isNotInstanceOf(PoisonedBatchException.class);
            assertThat(writer.storedOffsets(List.of(P0))).containsEntry(P0, 201L);

            // Read again from there, the batch starts with the refused entry: a poisoned batch, as the worker
            // isolates it
            List<ConsumerRecord<String, byte[]>> rest = from(records, 201L);
            assertThatThrownBy(() -> store(writer, rest)).isInstanceOf(PoisonedBatchException.class);
        }
        // aud_0 was never sent again
    }

    private static AuditSink cloudEvents(TestReceiver receiver) {
        return new CloudEventsSink(
                CloudEventsConfig.builder(receiver.url(), "whsec_test").build(),
                InstantSource.fixed(Instant.parse("2026-11-28T10:00:00Z")));
    }

    private static BatchWriter.WriteResult store(
            DurableSinkWriter writer, List<ConsumerRecord<String, byte[]>> records) {
        Map<TopicPartition, Long> next = new HashMap<>();
        records.forEach(r -> next.merge(P0, r.offset() + 1, Math::max));
        return writer.prepare(records, next).store();
    }

    private static List<ConsumerRecord<String, byte[]>> from(
            List<ConsumerRecord<String, byte[]>> records, long offset) {
        return records.stream().filter(r -> r.offset() >= offset).toList();
    }

    private static ConsumerRecord<String, byte[]> record(long offset, String id) {
        AuditEntry entry = TestAudit.anEntry();
        AuditEntry withId = new AuditEntry(
                id,
                entry.agentId(),
                entry.userId(),
                entry.callerId(),
                entry.action(),
                entry.resource(),
                entry.parameters(),
                entry.result(),
                entry.reason(),
                entry.durationMs(),
                entry.tokensCost(),
                entry.timestamp(),
                entry.ip(),
                entry.userAgent(),
                entry.callerIp(),
                entry.reasonDetail(),
                entry.delegationChain());
        return new ConsumerRecord<>(TOPIC, 0, offset, entry.agentId(), AuditEntryCodec.encode(withId));
    }

    private static List<String> arrivedIds(TestReceiver receiver) {
        return receiver.requests().stream()
                .map(r -> readTree(r.body()).get("id").asText())
                .toList();
    }

    private static com.fasterxml.jackson.databind.JsonNode readTree(byte[] body) {
        try {
            return dev.warden.pipeline.contract.Json.mapper().readTree(body);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<Long> deadLetteredOffsets(SinkTables db) throws Exception {
        List<Long> offsets = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT record_offset FROM sink_dead_letters ORDER BY record_offset")) {
            while (rs.next()) {
                offsets.add(rs.getLong(1));
            }
        }
        return offsets;
    }
}
