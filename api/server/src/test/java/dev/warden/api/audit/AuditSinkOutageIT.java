package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.launcher.WardenPlatform;
import dev.warden.sinks.external.AuditSinkSpec;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A SIEM outage loses nothing (docs/audit-sinks.md): the external audit sink is a durable consumer of
 * {@code warden.audit} with its own position, so entries made while the receiver answers 500, refuses connections,
 * answers slowly, or while the sinks role is restarted in the middle of an outage, all arrive once it recovers, with
 * no gap and no duplicate; {@code Retry-After} is honoured; health says DEGRADED with the reason, and the lag shows
 * in the metrics; the administrator pauses, resumes and replays the sink. The API runs in one process, the sinks role
 * in another (restarted in the middle of an outage). Outages last seconds here instead of the minute: the
 * behaviour does not depend on their length (the interop run keeps the minute).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AuditSinkOutageIT {
    static final FlakyReceiver receiver = new FlakyReceiver();
    static final Duration OUTAGE = Duration.ofSeconds(6);

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.roles("api,quota,pipeline")
            .auditSinks(List.of(AuditSinkSpec.builder(
                            AuditSinkSpec.Type.SPLUNK_HEC, URI.create("http://127.0.0.1:" + receiver.port()))
                    .secret("hec-token")
                    .option("name", "siem")
                    .option("request-timeout-ms", "8000")
                    .option("retry-ceiling-ms", "1000")
                    .build())));

    static WardenPlatform sinks;
    static Http http;
    static String admin;
    static String agent;

    @BeforeAll
    static void setUp() {
        sinks = warden.startAnother("sinks-1", b -> b.roles("sinks"));
        http = warden.http();
        admin = warden.adminToken();
        agent = http.post("/agents", admin, """
                        {"ownerId":"ops","name":"n","type":"service","permissions":[{"resource":"*","actions":["*"]}]}""").json().get("id").asText();
    }

    @AfterAll
    static void tearDown() {
        if (sinks != null) {
            sinks.close();
        }
        receiver.close();
    }

    /** {@code n} decisions; their audit ids. */
    static List<String> decide(int n, String tag) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Http.Response r = http.post(
                    "/authorize",
                    admin,
                    "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"" + tag + ":" + i + "\"}");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            ids.add(r.json().get("auditId").asText());
        }
        return ids;
    }

    static void awaitAll(List<String> ids, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline && !receiver.accepted.containsAll(ids)) {
            Thread.sleep(100);
        }
        assertThat(receiver.accepted).as("every entry arrives").containsAll(ids);
    }

    static Http sinksHttp() {
        return new Http(sinks.baseUri());
    }

    @Test
    @Order(1)
    void everyEntryMadeDuringAnOutageArrivesOnceAfterItAcrossARestartOfTheSinksRole() throws Exception {
        List<String> all = new ArrayList<>();
        List<String> healthy = decide(5, "healthy");
        awaitAll(healthy, Duration.ofSeconds(30));
        all.addAll(healthy);

        // The receiver answers 500: nothing is accepted, health says why, the lag shows, then all arrive
        receiver.mode(FlakyReceiver.Mode.FAIL_500);
        List<String> during500 = decide(10, "http500");
        Thread.sleep(OUTAGE.toMillis());
        assertThat(receiver.accepted).doesNotContainAnyElementsOf(during500);
        JsonNode health = sinksHttp().get("/observe/health", null).json();
        assertThat(health.toString()).contains("audit-sink:siem: failing").contains("HTTP 500");
        String metrics = sinksHttp().get("/observe/metrics", null).body();
        assertThat(lagSeconds(metrics))
                .as("warden_sink_lag_seconds of the sink")
                .isGreaterThan(2.0);
        // AuditSinkFailed, on the instance that runs the sink: once per failing batch, not once per attempt
        double failedAttempts = metric(metrics, "warden_sink_failed_batches_total{", "audit-sink:siem");
        double sinkFailed = metric(metrics, "warden_audit_sink_failed_total", "");
        assertThat(sinkFailed).isBetween(1.0, 10.0);
        assertThat(failedAttempts).as("attempts").isGreaterThan(sinkFailed);
        receiver.mode(FlakyReceiver.Mode.OK);
        awaitAll(during500, Duration.ofSeconds(30));
        all.addAll(during500);

        // Connections refused for a while
        receiver.down();
        List<String> whileDown = decide(10, "down");
        Thread.sleep(OUTAGE.toMillis());
        receiver.up();
        awaitAll(whileDown, Duration.ofSeconds(30));
        all.addAll(whileDown);

        // Slow: 5 s per request, within the request timeout
        receiver.mode(FlakyReceiver.Mode.SLOW_5S);
        List<String> slow = decide(3, "slow");
        awaitAll(slow, Duration.ofSeconds(40));
        receiver.mode(FlakyReceiver.Mode.OK);
        all.addAll(slow);

        // The sinks role restarts in the middle of an outage: the next instance resumes from the stored position
        receiver.mode(FlakyReceiver.Mode.FAIL_500);
        List<String> acrossRestart = decide(10, "restart");
        Thread.sleep(2000);
        sinks.close();
        List<String> whileNoSinks = decide(5, "nosinks");
        sinks = warden.startAnother("sinks-2", b -> b.roles("sinks"));
        Thread.sleep(3000);
        receiver.mode(FlakyReceiver.Mode.OK);
        awaitAll(acrossRestart, Duration.ofSeconds(60));
        awaitAll(whileNoSinks, Duration.ofSeconds(30));
        all.addAll(acrossRestart);
        all.addAll(whileNoSinks);

        Map<String, Long> counts = receiver.accepted.stream()
                .filter(all::contains)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        List<String> duplicated = counts.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(Map.Entry::getKey)
                .toList();
        System.out.println("AuditSinkOutageIT: " + all.size() + " entries, " + duplicated.size() + " duplicates");
        assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(all);
        // No delivery was accepted while the restart happened, so no retry crossed it: no duplicate anywhere
        assertThat(duplicated).isEmpty();
    }

    @Test
    @Order(2)
    void aRetryAfterIsWaitedOutEvenBeyondTheBackoffCeiling() throws Exception {
        receiver.tooManyOnce(3);
        int before = receiver.requests.size();
        List<String> ids = decide(1, "retry-after");
        awaitAll(ids, Duration.ofSeconds(30));
        List<Instant> attempts = receiver.requests.subList(before, receiver.requests.size());
        assertThat(attempts).hasSizeGreaterThanOrEqualTo(2);
        Duration gap = Duration.between(attempts.get(0), attempts.get(1));
        assertThat(gap)
                .as("the second attempt waits for Retry-After: 3 (the ceiling is 1 s)")
                .isGreaterThanOrEqualTo(Duration.ofMillis(2800));
    }

    @Test
    @Order(3)
    void theAdministratorPausesResumesAndReplaysASink() throws Exception {
        JsonNode listed = http.get("/admin/v1/sinks", admin).json();
        assertThat(listed.toString()).contains("\"name\":\"siem\"").contains("\"type\":\"splunk-hec\"");
        Instant start = Instant.now().minusSeconds(1);

        Http.Response paused = http.post("/admin/v1/sinks/siem/pause", admin, "{}");
        assertThat(paused.status()).as(paused.body()).isEqualTo(200);
        assertThat(paused.json().get("paused").asBoolean()).isTrue();
        Thread.sleep(2500);
        List<String> whilePaused = decide(3, "paused");
        Thread.sleep(3000);
        assertThat(receiver.accepted).doesNotContainAnyElementsOf(whilePaused);
        assertThat(sinksHttp().get("/observe/health", null).body()).contains("paused by the administrator");

        assertThat(http.post("/admin/v1/sinks/siem/resume", admin, "{}").status())
                .isEqualTo(200);
        awaitAll(whilePaused, Duration.ofSeconds(30));
        assertThat(whilePaused).allMatch(id -> receiver.times(id) == 1);

        // A replay re-sends from a time, with the original ids
        Http.Response replay = http.post("/admin/v1/sinks/siem/replay", admin, "{\"from\":\"" + start + "\"}");
        assertThat(replay.status()).as(replay.body()).isEqualTo(202);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline && !whilePaused.stream().allMatch(id -> receiver.times(id) == 2)) {
            Thread.sleep(100);
        }
        assertThat(whilePaused).allMatch(id -> receiver.times(id) == 2);

        // The audit log records who did it; the controls are the administrator's only
        List<String> actions = http.get("/audit?limit=1000", admin).json().findValuesAsText("action");
        assertThat(actions).contains("admin.sink.pause", "admin.sink.resume", "admin.sink.replay");
        assertThat(http.post("/admin/v1/sinks/nope/pause", admin, "{}").status())
                .isEqualTo(404);
        assertThat(http.post("/admin/v1/sinks/siem/replay", admin, "{\"from\":\"yesterday\"}")
                        .body())
                .contains("from");
        String user = http.post("/auth/tokens", admin, "{\"name\":\"t\",\"userId\":\"someone\"}")
                .json()
                .get("token")
                .asText();
        assertThat(http.post("/admin/v1/sinks/siem/pause", user, "{}").status()).isEqualTo(403);
    }

    static double lagSeconds(String metrics) {
        return metric(metrics, "warden_sink_lag_seconds{", "audit-sink:siem");
    }

    static double metric(String metrics, String prefix, String containing) {
        return metrics.lines()
                .filter(l -> l.startsWith(prefix) && l.contains(containing))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElse(-1);
    }
}
