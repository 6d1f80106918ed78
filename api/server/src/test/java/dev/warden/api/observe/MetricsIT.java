package dev.warden.api.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.testing.Http;
import dev.warden.testing.RepositoryFiles;
import dev.warden.testing.TestPlatform;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /observe/metrics} after real traffic, parsed as Prometheus' text format: the request, decision, phase,
 * audit, sink, stream, rate-limit, JVM, pool and Kafka client series are there, with route templates and never
 * an id in a label; the access log has one record per request and no token.
 */
class MetricsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.accessLog(true)
            .rateLimit(RateLimitConfig.builder()
                    .endpoint(AuthEndpoint.OAUTH_AUTHORIZE, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_INTROSPECT, 100_000, 60)
                    .endpoint(AuthEndpoint.OAUTH_REVOKE, 100_000, 60)
                    .endpoint(AuthEndpoint.SIGN_IN, 2, 60)
                    .build()));

    /** One sample line: name, labels, value. */
    record Sample(String name, Map<String, String> labels, double value) {}

    private static final Pattern LINE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static List<Sample> scrape(Http http) {
        Http.Response res = http.get("/observe/metrics", null);
        assertThat(res.status()).isEqualTo(200);
        assertThat(res.header("Content-Type").orElseThrow()).startsWith("text/plain");
        List<Sample> samples = new ArrayList<>();
        for (String line : res.body().split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            assertThat(m.matches()).as("exposition line: " + line).isTrue();
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return samples;
    }

    static double sum(List<Sample> samples, String name, Map<String, String> labels) {
        return samples.stream()
                .filter(s -> s.name().equals(name)
                        && labels.entrySet().stream()
                                .allMatch(e -> e.getValue().equals(s.labels().get(e.getKey()))))
                .mapToDouble(Sample::value)
                .sum();
    }

    @Test
    void realTrafficShowsInTheScrapeWithBoundedLabels() throws Exception {
        List<LogRecord> access = new java.util.concurrent.CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                access.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger.getLogger(Logs.ACCESS_LOGGER).addHandler(capture);
        Http http = warden.http();
        String admin = warden.adminToken();
        String agent = http.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"mia\",\"name\":\"m\",\"type\":\"autonomous\","
                                + "\"permissions\":[{\"resource\":\"doc:*\",\"actions\":[\"read\"]}]}")
                .json()
                .get("id")
                .asText();
        for (int i = 0; i < 3; i++) {
            assertThat(http.post(
                                    "/authorize",
                                    admin,
                                    "{\"agentId\":\"" + agent + "\",\"action\":\"read\"," + "\"resource\":\"doc:1\"}")
                            .json()
                            .get("allowed")
                            .asBoolean())
                    .isTrue();
        }
        assertThat(http.post(
                                "/authorize",
                                admin,
                                "{\"agentId\":\"" + agent + "\",\"action\":\"write\"," + "\"resource\":\"doc:1\"}")
                        .json()
                        .get("allowed")
                        .asBoolean())
                .isFalse();
        assertThat(http.get("/agents/" + agent, admin).status()).isEqualTo(200);
        assertThat(http.get("/agents/agt_nosuchagent", admin).status()).isEqualTo(404);
        assertThat(http.get("/nowhere/at/all", admin).status()).isEqualTo(404);
        int limited = 0;
        for (int i = 0; i < 4; i++) {
            limited += http.post("/auth/sign-in", null, "{\"username\":\"nobody\",\"password\":\"wrong password\"}")
                                    .status()
                            == 429
                    ? 1
                    : 0;
        }
        assertThat(limited).isPositive();
        // The answer's X-Request-Id is the log line's: the caller's own when plain, else a new one.
        Http.Response tagged = http.send(http.builder("/openapi.json", null)
                .header("X-Request-Id", "report-42")
                .GET());
        assertThat(tagged.header("X-Request-Id")).hasValue("report-42");
        Http.Response minted = http.send(http.builder("/openapi.json", null)
                .header("X-Request-Id", "not plain <x>")
                .GET());
        assertThat(minted.header("X-Request-Id"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("req_"));
        // The record is written once the answer is sent: wait for it.
        long logged = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < logged
                && List.copyOf(access).stream().noneMatch(r -> r.getMessage().endsWith(" anonymous report-42"))) {
            Thread.sleep(20);
        }
        assertThat(List.copyOf(access))
                .anySatisfy(r -> assertThat(r.getMessage()).endsWith(" anonymous report-42"));
        Logger.getLogger(Logs.ACCESS_LOGGER).removeHandler(capture);

        System.gc(); // the GC pause series appears with the first collection
        List<Sample> samples = scrape(http);
        assertThat(sum(samples, "warden_build_info", Map.of("version", dev.warden.api.observe.WardenVersion.current())))
                .as("the running build's version")
                .isEqualTo(1);
        assertThat(dev.warden.api.observe.WardenVersion.current()).matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(sum(
                        samples,
                        "http_server_requests_seconds_count",
                        Map.of("route", "/authorize", "method", "POST", "status", "200", "outcome", "SUCCESS")))
                .isEqualTo(4);
        assertThat(sum(samples, "http_server_requests_seconds_count", Map.of("route", "/agents/{id}", "status", "404")))
                .isEqualTo(1);
        assertThat(sum(samples, "http_server_requests_seconds_count", Map.of("route", HttpObservation.UNMATCHED)))
                .isEqualTo(1);
        assertThat(sum(samples, "http_server_requests_seconds_bucket", Map.of("route", "/authorize", "le", "+Inf")))
                .isEqualTo(4);
        assertThat(sum(samples, "warden_decisions_total", Map.of("result", "allowed", "reason", "NONE")))
                .isEqualTo(3);
        assertThat(sum(
                        samples,
                        "warden_decisions_total",
                        Map.of("result", "denied", "reason", "NO_MATCHING_PERMISSION")))
                .isEqualTo(1);
        assertThat(sum(samples, "warden_authorize_phase_seconds_count", Map.of("phase", "policy")))
                .isEqualTo(4);
        assertThat(sum(samples, "warden_authorize_phase_seconds_count", Map.of("phase", "audit")))
                .isEqualTo(4);
        assertThat(sum(samples, "warden_rate_limit_rejections_total", Map.of("endpoint", "/auth/sign-in")))
                .isEqualTo(limited);
        assertThat(sum(samples, "warden_audit_emitted_total", Map.of())).isGreaterThanOrEqualTo(4);
        for (String name : List.of(
                "warden_sse_connections",
                "warden_sse_max_connections",
                "warden_sse_deliveries_total",
                "warden_sse_dropped_total",
                "warden_audit_publish_failures_total",
                "warden_webhooks_delivered_total",
                "warden_sink_lag_records",
                "warden_sink_write_seconds_count",
                "warden_sink_write_seconds_bucket",
                "warden_sink_batch_records_total",
                "warden_sink_dead_letters_total",
                "jvm_memory_used_bytes",
                "jvm_gc_pause_seconds_count",
                "jvm_threads_live_threads",
                "hikaricp_connections_active",
                "kafka_producer_record_send_total",
                "kafka_consumer_fetch_manager_records_lag_max")) {
            assertThat(samples).as(name).anyMatch(s -> s.name().equals(name));
        }
        // Every name the dashboard and the alert rules use (deploy/observability/metric-names.txt) is in the scrape.
        List<String> used =
                java.nio.file.Files.readAllLines(RepositoryFiles.file("deploy/observability/metric-names.txt")).stream()
                        .filter(l -> !l.isBlank() && !l.startsWith("#"))
                        .map(l -> l.split("\\s+")[0])
                        // Prometheus makes `up` itself, per scraped target: no process serves it.
                        .filter(name -> !name.equals("up"))
                        .toList();
        assertThat(used).hasSizeGreaterThan(20);
        assertThat(used)
                .allSatisfy(name ->
                        assertThat(samples).as(name).anyMatch(s -> s.name().equals(name)));
        // Bounded: no label value is an id, a raw path or a token.
        Pattern id = Pattern.compile(".*(agt_|usr_|org_|aud_|dlg_|wdn_|req_|nosuchagent|/nowhere).*");
        assertThat(samples)
                .allSatisfy(s -> assertThat(s.labels().values())
                        .noneMatch(v -> id.matcher(v).matches()));

        assertThat(access)
                .anySatisfy(r -> assertThat(r.getMessage())
                        .isEqualTo("GET /agents/{id} 404 " + ((Map<?, ?>) r.getParameters()[0]).get("durationMs")
                                + "ms admin " + ((Map<?, ?>) r.getParameters()[0]).get("requestId")));
        assertThat(access.stream()
                        .map(r -> (Map<?, ?>) r.getParameters()[0])
                        .filter(f -> "/agents/{id}".equals(f.get("route"))
                                && Integer.valueOf(404).equals(f.get("status"))))
                .as("the record names the principal and the client's address")
                .isNotEmpty()
                .allSatisfy(f -> {
                    assertThat(f.get("principalId")).isEqualTo("admin");
                    assertThat(f.get("client")).isEqualTo("127.0.0.1");
                });
        assertThat(access)
                .allSatisfy(
                        r -> assertThat(r.getMessage()).doesNotContain(admin).doesNotContain(agent));
        assertThat(access.stream().filter(r -> r.getMessage().startsWith("POST /authorize 200")))
                .hasSize(4);

        // Each decision's audit event reaches this instance's event feed, and the feed times it.
        long deadline = System.nanoTime() + 15_000_000_000L;
        List<Sample> fed = scrape(http);
        while (sum(fed, "warden_events_feed_delay_seconds_count", Map.of()) < 4 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            fed = scrape(http);
        }
        assertThat(sum(fed, "warden_events_feed_delay_seconds_count", Map.of()))
                .as("audit events timed by the feed")
                .isGreaterThanOrEqualTo(4);
        assertThat(sum(fed, "warden_events_feed_delay_seconds_bucket", Map.of("le", "+Inf")))
                .isGreaterThanOrEqualTo(4);
    }
}
