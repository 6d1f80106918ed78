package dev.warden.api.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import dev.warden.testing.SseClient;
import dev.warden.testing.TestPlatform;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rows that were stored before the edge contract (or by anything else) and cannot be decoded any more never
 * fail a page: here a number of 1,101 digits, beyond every reader's limit, is written straight into
 * PostgreSQL. Lists and exports skip the row and count it, and SSE replay goes on past it.
 */
class UnreadableRowsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static final String UNREADABLE = "'{\"n\": 1e1100}'::jsonb";

    static Http http;
    static String admin;

    @BeforeAll
    static void fixtures() {
        http = warden.http();
        admin = warden.adminToken();
    }

    @Test
    void anUnreadableAgentIsLeftOutOfListsAndCannotActWhileTheOthersAreServed() throws Exception {
        String bad = createAgent("bad");
        String good = createAgent("good");
        sql("UPDATE agents SET metadata = " + UNREADABLE + " WHERE id = '" + bad + "'");

        Http.Response list = http.get("/agents", admin);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.json().findValuesAsText("id")).contains(good).doesNotContain(bad);
        assertThat(http.get("/agents/" + bad, admin).status()).isEqualTo(404);
        assertThat(http.get("/dashboard/stats", admin).status()).isEqualTo(200);
        Http.Response decision = http.post(
                "/authorize", admin, "{\"agentId\":\"" + bad + "\",\"action\":\"read\",\"resource\":\"x:y\"}");
        assertThat(decision.status()).isEqualTo(200);
        assertThat(decision.json().get("allowed").asBoolean()).isFalse();
        assertThat(http.get("/observe/metrics", null).body())
                .containsPattern("warden_unreadable_rows_total\\{table=\"agents\"} [1-9]");
    }

    @Test
    void anUnreadableAuditRowIsLeftOutOfTheLogAndTheExports() throws Exception {
        String agent = createAgent("audited");
        String kept = http.post(
                        "/authorize", admin, "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"x:y\"}")
                .json()
                .get("auditId")
                .asText();
        sql("INSERT INTO audit_events (id, agent_id, user_id, caller_id, action, resource, parameters, result, "
                + "duration_ms, tokens_cost, ts) VALUES ('aud_unreadable', '" + agent
                + "', 'olga', 'admin', 'read', 'x:y', "
                + UNREADABLE + ", 'allowed', 1, 0, now())");

        Http.Response page = http.get("/audit?agentId=" + agent, admin);
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.json().findValuesAsText("id")).contains(kept).doesNotContain("aud_unreadable");
        Http.Response csv = http.get("/audit/export?format=csv", admin);
        assertThat(csv.status()).isEqualTo(200);
        assertThat(csv.body()).contains(kept).doesNotContain("aud_unreadable");
        Http.Response json = http.get("/audit/export?format=json", admin);
        assertThat(json.status()).isEqualTo(200);
        assertThat(json.json().findValuesAsText("id")).contains(kept);
    }

    @Test
    void sseReplayGoesOnPastAnUnreadableStoredEvent() throws Exception {
        String first = createAgent("first");
        String second = createAgent("second");
        long firstId = awaitStoredId(first);
        long secondId = awaitStoredId(second);
        sql("UPDATE service_stream_events SET data = " + UNREADABLE + " WHERE id = " + firstId);

        try (SseClient sse = SseClient.connect(
                http.baseUri(),
                "/events/stream?types=agent.created",
                Map.of("Authorization", "Bearer " + admin, "Last-Event-ID", Long.toString(firstId - 1)))) {
            List<SseClient.Message> got = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (got.stream().noneMatch(m -> m.data().contains(second)) && System.nanoTime() < deadline) {
                SseClient.Message m = sse.next(Duration.ofSeconds(1));
                if (m != null && m.id() != null) {
                    got.add(m);
                }
            }
            assertThat(got)
                    .anyMatch(m ->
                            m.id().equals(Long.toString(secondId)) && m.data().contains(second));
            assertThat(got).noneMatch(m -> m.id().equals(Long.toString(firstId)));
        }
    }

    static String createAgent(String name) {
        Http.Response res = http.post(
                "/agents",
                admin,
                "{\"ownerId\":\"olga\",\"name\":\"" + name
                        + "\",\"type\":\"service\",\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    static long awaitStoredId(String agentId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try (Connection conn = connect();
                    Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT id FROM service_stream_events WHERE type = 'agent.created' "
                            + "AND agent_id = '" + agentId + "'")) {
                if (rs.next()) {
                    return rs.getLong(1);
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("agent.created of " + agentId + " not stored within 20 s");
    }

    static Connection connect() throws Exception {
        Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
        try (Statement st = conn.createStatement()) {
            st.execute(
                    "SET search_path TO " + warden.config().postgres().schema().orElseThrow());
        }
        return conn;
    }

    static void sql(String statement) throws Exception {
        try (Connection conn = connect();
                Statement st = conn.createStatement()) {
            st.execute(statement);
        }
    }
}
