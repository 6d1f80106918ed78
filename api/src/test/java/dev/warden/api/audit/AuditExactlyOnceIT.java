package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.db.Database;
import dev.warden.launcher.roles.SinksRole;
import dev.warden.sinks.runtime.SinkCounters;
import dev.warden.testing.DecisionLoad;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Exactly once into Postgres: while decisions flow, the writer is killed and restarted several times and
 * once loses its stored offsets (forcing Kafka to redeliver everything); afterwards every auditId that
 * {@code /authorize} returned is in {@code audit_events} exactly once.
 */
class AuditExactlyOnceIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.roles("api,quota"));

    @Test
    void everyReturnedAuditIdIsStoredExactlyOnceAcrossWriterCrashesAndRedelivery() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        String agent = http.post("/agents", admin, "{\"ownerId\":\"ulf\",\"name\":\"n\",\"type\":\"service\","
                + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}").json().get("id").asText();
        String schema = warden.config().postgres().schema().orElseThrow();
        Set<String> answered;
        try (Database db = Database.connect(warden.infra().jdbcUrl(), warden.config().postgres().pool())) {
            SinkCounters counters = new SinkCounters();
            try (DecisionLoad load = DecisionLoad.start(http, admin, agent, 4)) {
                for (int round = 0; round < 4; round++) {
                    SinksRole writer = SinksRole.start(warden.config(), warden.infra().kafkaBootstrap(), db, List.of(),
                            counters, Clock.systemUTC());
                    Thread.sleep(700);
                    writer.close();
                    if (round == 1) {
                        forgetStoredOffsets(schema);
                    }
                }
                load.close();
                answered = load.answered();
            }
            try (SinksRole writer = SinksRole.start(warden.config(), warden.infra().kafkaBootstrap(), db, List.of(),
                    counters, Clock.systemUTC())) {
                Map<String, Integer> stored = DecisionLoad.storedCounts(warden.infra().jdbcUrl(), schema, answered,
                        Duration.ofSeconds(60));
                assertThat(answered).hasSizeGreaterThan(50);
                assertThat(stored.keySet()).containsAll(answered);
                assertThat(stored.values()).allMatch(n -> n == 1);
                assertThat(writer.health().check().up()).isTrue();
            }
        }
    }

    private static void forgetStoredOffsets(String schema) throws Exception {
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
             Statement st = conn.createStatement()) {
            st.execute("SET search_path TO " + schema);
            st.executeUpdate("UPDATE sink_offsets SET next_offset = 0");
        }
    }
}
