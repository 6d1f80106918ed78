package dev.warden.bench;

import dev.warden.api.config.WardenConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * What the fleet benchmarks (FleetBench, StreamBench) share: an isolated deployment's configuration on the shared
 * broker and database, an agent to decide for, and dropping the deployment's schema afterwards.
 */
final class BenchFleet {
    static final String ADMIN = "wdn_adm_fleet_bench";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private BenchFleet() {}

    /**
     * Instance A of the deployment {@code isolation} (every role; its own schema, topics and Streams applications),
     * with the {@code audit} stream events on or off and the audit writer batching for at most {@code mirrorCommitMs}.
     * Instance B is {@code a.toBuilder().roles("api").instanceId(isolation + "-b")}. {@code -Dbench.roles} gives A
     * fewer roles, to see what each costs (e.g. {@code api,quota,pipeline}: no sinks).
     */
    static WardenConfig instanceA(String isolation, Path stateDir, boolean mirror, long mirrorCommitMs) {
        return WardenConfig.builder()
                .roles(System.getProperty("bench.roles", "api,quota,pipeline,sinks"))
                .host("127.0.0.1")
                .port(0)
                .instanceId(isolation + "-a")
                .bootstrapToken(ADMIN)
                .pgSchema(isolation)
                .pgPoolSize(10)
                .streamsApplicationPrefix(isolation + "-")
                .streamsStateDir(stateDir.toString())
                .topics(Topics.defaults().withPrefix(isolation + "."))
                .mirrorAudit(mirror)
                .mirrorCommitIntervalMs(mirrorCommitMs)
                .build();
    }

    /** A new agent on {@code base} allowed to read {@code mcp:fleet:*}: {@code [id, token]}. */
    static String[] agent(URI base) throws Exception {
        return agent(base, "mcp:fleet:*");
    }

    /** A new agent on {@code base} allowed to read {@code resource}: {@code [id, token]}. */
    static String[] agent(URI base, String resource) throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(base.resolve("/agents"))
                .header("Authorization", "Bearer " + ADMIN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"ownerId\":\"fleet\",\"name\":\"p\",\"type\":\"service\","
                        + "\"permissions\":[{\"resource\":\"" + resource + "\",\"actions\":[\"read\"]}]}")));
        var json = Json.mapper().readTree(r.body());
        return new String[] {json.get("id").asText(), json.get("token").asText()};
    }

    /** The administrator's SSE stream of {@code types} on {@code base}, as lines (sent asynchronously). */
    static CompletableFuture<HttpResponse<Stream<String>>> events(URI base, String types) {
        return HTTP.sendAsync(
                HttpRequest.newBuilder(base.resolve("/events/stream?types=" + types))
                        .header("Authorization", "Bearer " + ADMIN)
                        .header("Accept", "text/event-stream")
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofLines());
    }

    static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The database server's settings that move the benchmarks' figures, as one line to print beside them: its
     * version, and the WAL settings whose defaults stall the audit writer when a burst of WAL has to create new
     * segments (docs/operations.md, "PostgreSQL").
     */
    static String postgresSettings(String jdbcUrl) throws Exception {
        try (Connection conn = DriverManager.getConnection(jdbcUrl);
                Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT name, setting, coalesce(unit, '') FROM pg_settings WHERE name IN"
                        + " ('server_version', 'min_wal_size', 'max_wal_size', 'wal_init_zero', 'wal_recycle',"
                        + " 'synchronous_commit', 'shared_buffers') ORDER BY name")) {
            StringBuilder line = new StringBuilder("PostgreSQL:");
            while (rs.next()) {
                line.append(' ')
                        .append(rs.getString(1))
                        .append('=')
                        .append(rs.getString(2))
                        .append(rs.getString(3).equals("8kB") ? "×8kB" : rs.getString(3));
            }
            return line.toString();
        }
    }

    /** Drops the deployment's schema. */
    static void dropSchema(String jdbcUrl, String isolation) throws Exception {
        try (Connection conn = DriverManager.getConnection(jdbcUrl);
                Statement st = conn.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + isolation + " CASCADE");
        }
    }
}
