package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The audit log in Postgres: query, export, tenancy, read-your-writes, append-only, counters. */
class AuditIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static Http http;
    static String admin;
    static String rita;
    static String ritasAgent;
    static String samsAgent;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        admin = warden.adminToken();
        rita = http.post("/auth/tokens", admin, "{\"name\":\"t\",\"userId\":\"rita\"}")
                .json()
                .get("token")
                .asText();
        ritasAgent = agent("rita");
        samsAgent = agent("sam");
    }

    static String agent(String owner) {
        return http.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"" + owner + "\",\"name\":\"n\",\"type\":\"service\","
                                + "\"permissions\":[{\"resource\":\"mcp:fs:*\",\"actions\":[\"read\"]}]}")
                .json()
                .get("id")
                .asText();
    }

    static String decide(String agentId, String action, String arguments) {
        Http.Response res = http.post(
                "/authorize",
                admin,
                "{\"agentId\":\"" + agentId + "\",\"action\":\"" + action
                        + "\",\"resource\":\"mcp:fs:docs\",\"arguments\":" + arguments + "}");
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json().get("auditId").asText();
    }

    @Test
    void aDecisionIsVisibleAtOnceAndFiltersApplyBeforeTheLimit() {
        String allowed = decide(ritasAgent, "read", "{}");
        String denied = decide(ritasAgent, "write", "{}");

        List<String> all = ids(http.get("/audit?agentId=" + ritasAgent, admin));
        assertThat(all).containsSubsequence(denied, allowed);
        assertThat(ids(http.get("/audit?agentId=" + ritasAgent + "&result=denied", admin)))
                .contains(denied)
                .doesNotContain(allowed);
        assertThat(ids(http.get("/audit?agentId=" + ritasAgent + "&actions=write,delete", admin)))
                .contains(denied)
                .doesNotContain(allowed);
        assertThat(ids(http.get("/audit?agentId=" + ritasAgent + "&limit=1", admin)))
                .hasSize(1);
        assertThat(ids(http.get("/audit?agentId=" + ritasAgent + "&limit=1&offset=1", admin)))
                .doesNotContain(all.getFirst());
        assertThat(ids(http.get("/audit?agentId=" + ritasAgent + "&until=2000-01-01T00:00:00Z", admin)))
                .isEmpty();
        JsonNode first = http.get("/audit?agentId=" + ritasAgent + "&result=denied&limit=1", admin)
                .json()
                .get(0);
        assertThat(first.get("reason").asText()).isEqualTo("NO_MATCHING_PERMISSION");
        assertThat(first.get("userId").asText()).isEqualTo("rita");
        assertThat(first.get("timestamp").asText()).endsWith("Z");
    }

    @Test
    void badQueryValuesAre400sNamingTheParameter() {
        assertThat(field(http.get("/audit?result=maybe", admin))).isEqualTo("result");
        assertThat(field(http.get("/audit?since=yesterday", admin))).isEqualTo("since");
        assertThat(field(http.get("/audit?limit=-1", admin))).isEqualTo("limit");
        assertThat(field(http.get("/audit?limit=100000", admin))).isEqualTo("limit");
        assertThat(field(http.get("/audit/export?format=xml", admin))).isEqualTo("format");
    }

    @Test
    void theExportsFormatIsChosenByAcceptUnlessTheQueryNamesOne() {
        String id = decide(ritasAgent, "read", "{}");
        Http.Response csv = http.send(http.builder("/audit/export", admin)
                .header("Accept", "application/json;q=0.5, text/csv")
                .GET());
        assertThat(csv.status()).isEqualTo(200);
        assertThat(csv.header("Content-Type").orElseThrow()).startsWith("text/csv");
        assertThat(csv.header("Vary").orElseThrow()).isEqualTo("Accept");
        assertThat(csv.body()).startsWith("id,agentId,").contains(id);

        Http.Response json = http.get("/audit/export", admin); // no Accept: JSON
        assertThat(json.header("Content-Type").orElseThrow()).startsWith("application/json");
        assertThat(json.json().findValuesAsText("id")).contains(id);

        Http.Response queried = http.send(http.builder("/audit/export?format=json", admin)
                .header("Accept", "text/csv")
                .GET());
        assertThat(queried.header("Content-Type").orElseThrow()).startsWith("application/json");

        Http.Response neither = http.send(http.builder("/audit/export", admin)
                .header("Accept", "image/png")
                .GET());
        assertThat(neither.status()).isEqualTo(406);
        assertThat(neither.json().get("code").asText()).isEqualTo("not_acceptable");
        for (String malformed : List.of("text/csv;q=abc", ";;;")) {
            Http.Response bad = http.send(http.builder("/audit/export", admin)
                    .header("Accept", malformed)
                    .GET());
            assertThat(bad.status()).as(malformed).isEqualTo(400);
            assertThat(field(bad)).isEqualTo("Accept");
        }
    }

    @Test
    void aUserSeesOnlyEntriesOfTheirOwnAgents() {
        String samsDecision = decide(samsAgent, "read", "{}");
        String ritasDecision = decide(ritasAgent, "read", "{}");
        List<String> visible = ids(http.get("/audit?limit=1000", rita));
        assertThat(visible).contains(ritasDecision).doesNotContain(samsDecision);
        assertThat(ids(http.get("/audit?agentId=" + samsAgent, rita))).isEmpty();
        String csv = http.get("/audit/export?format=csv", rita).body();
        assertThat(csv).contains(ritasDecision).doesNotContain(samsDecision);
    }

    @Test
    void csvExportIsAnRfc4180AttachmentWithEveryField() {
        String id = decide(ritasAgent, "read", "{\"query\":\"a,b \\\"quoted\\\"\\nnext line\"}");
        Http.Response res = http.get("/audit/export?format=csv&since=2000-01-01T00:00:00Z", admin);
        assertThat(res.status()).isEqualTo(200);
        assertThat(res.header("Content-Type").orElseThrow()).startsWith("text/csv");
        assertThat(res.header("Content-Disposition").orElseThrow()).startsWith("attachment; filename=\"warden-audit-");
        String body = res.body();
        assertThat(body)
                .startsWith("id,agentId,userId,callerId,action,resource,parameters,result,reason,durationMs,"
                        + "tokensCost,timestamp,ip,userAgent,callerIp,reasonDetail\r\n");
        String row = body.substring(body.indexOf(id));
        assertThat(row)
                .startsWith(id + "," + ritasAgent + ",rita,admin,read,mcp:fs:docs,"
                        + "\"{\"\"query\"\":\"\"a,b \\\"\"quoted\\\"\"\\nnext line\"\"}\",allowed,,");
    }

    @Test
    void jsonExportIsAStreamedArrayOfEntries() {
        String id = decide(ritasAgent, "read", "{}");
        Http.Response res = http.get("/audit/export?format=json", admin);
        assertThat(res.status()).isEqualTo(200);
        assertThat(res.header("Content-Disposition").orElseThrow()).contains(".json");
        assertThat(res.json().isArray()).isTrue();
        assertThat(res.json().findValuesAsText("id")).contains(id);
    }

    @Test
    void theDatabaseRefusesUpdatesDeletesAndTruncates() throws SQLException {
        decide(ritasAgent, "read", "{}");
        http.get("/audit?limit=1", admin);
        String schema = warden.config().postgres().schema().orElseThrow();
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute("SET search_path TO " + schema);
            assertThatThrownBy(() -> st.executeUpdate("UPDATE audit_events SET result = 'allowed'"))
                    .hasMessageContaining("append-only");
            assertThatThrownBy(() -> st.executeUpdate("DELETE FROM audit_events"))
                    .hasMessageContaining("append-only");
            String partition = partitionName(st);
            assertThatThrownBy(() -> st.execute("TRUNCATE " + partition)).hasMessageContaining("append-only");
        }
    }

    @Test
    void countersAreExposedAsStatsAndPrometheusMetrics() {
        decide(ritasAgent, "read", "{}");
        http.get("/audit?limit=1", admin);
        JsonNode stats = http.get("/audit/stats", admin).json();
        assertThat(stats.get("AuditEmitted").asLong()).isPositive();
        assertThat(stats.get("AuditWritten").asLong()).isPositive();
        assertThat(stats.get("AuditSinkFailed").asLong()).isZero();
        String metrics = http.get("/observe/metrics", null).body();
        assertThat(metrics)
                .contains("# TYPE warden_audit_written_total counter")
                .containsPattern("warden_audit_emitted_total [1-9]");
    }

    private static String partitionName(Statement st) throws SQLException {
        try (var rs = st.executeQuery("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                + "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'audit_events' AND c.relname LIKE 'audit_events_y%' "
                + "AND c.relnamespace = to_regnamespace(current_schema()) LIMIT 1")) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    private static String field(Http.Response res) {
        assertThat(res.status()).as(res.body()).isEqualTo(400);
        return res.json().get("errors").get(0).get("field").asText();
    }

    private static List<String> ids(Http.Response res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        res.json().forEach(e -> ids.add(e.get("id").asText()));
        return ids;
    }
}
