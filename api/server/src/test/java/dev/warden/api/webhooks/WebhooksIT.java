package dev.warden.api.webhooks;

import static dev.warden.testing.TestAgents.anAgent;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.testing.HandMadeBatches;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Webhook endpoints and deliveries through real HTTP, Kafka and PostgreSQL, to a local receiver (private
 * targets allowed here; {@link WebhookDefaultsIT} covers the SSRF guard). Each test uses its own users and
 * receiver paths; the clock moves forward before each, so endpoints only see that test's events.
 */
class WebhooksIT {
    private static final String KEY = Base64.getEncoder()
            .encodeToString("0123456789abcdef0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII));

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.webhooks(WebhooksConfig.builder()
            .allowPrivateTargets(true)
            .backoffMs(5)
            .timeoutMs(5_000)
            .encryptionKey(KEY)
            .build()));

    static Http http;
    static String admin;
    static WebhookReceiver receiver;

    @BeforeAll
    static void start() {
        http = warden.http();
        admin = warden.adminToken();
        receiver = WebhookReceiver.start();
    }

    @AfterAll
    static void stop() {
        receiver.close();
    }

    @BeforeEach
    void moveClockPastEarlierEvents() {
        warden.clock().advance(Duration.ofSeconds(1));
    }

    // --- the subscriptions API ---

    @Test
    void createAnswers201WithTheSecretOnceAndReadsNeverShowIt() {
        String alice = apiToken("alice");
        Http.Response res = http.post("/webhooks", alice, """
                {"url":"%s","eventTypes":["agent.created","agent.revoked"],"description":"ops pager"}""".formatted(receiver.url("/created")));

        assertThat(res.status()).as(res.body()).isEqualTo(201);
        JsonNode hook = res.json();
        String id = hook.get("id").asText();
        assertThat(id).startsWith("whk_");
        assertThat(res.header("Location")).hasValue("/webhooks/" + id);
        assertThat(hook.get("url").asText()).isEqualTo(receiver.url("/created"));
        assertThat(hook.get("eventTypes").toString()).isEqualTo("[\"agent.created\",\"agent.revoked\"]");
        assertThat(hook.get("description").asText()).isEqualTo("ops pager");
        assertThat(hook.get("status").asText()).isEqualTo("active");
        assertThat(hook.get("ownerId").asText()).isEqualTo("alice");
        assertThat(hook.get("createdAt").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
        String secret = hook.get("secret").asText();
        assertThat(secret).startsWith("whsec_");
        assertThat(Base64.getDecoder().decode(secret.substring(6))).hasSizeBetween(24, 32);

        Http.Response read = http.get("/webhooks/" + id, alice);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().has("secret")).isFalse();
        assertThat(read.json().get("eventTypes")).isEqualTo(hook.get("eventTypes"));
        assertThat(http.get("/webhooks", alice).body()).contains(id).doesNotContain(secret);
    }

    @Test
    void theSigningSecretIsStoredEncryptedWhenAKeyIsConfigured() throws Exception {
        JsonNode hook = createWebhook(apiToken("alice"), "/stored", "");

        String stored = storedSecret(hook.get("id").asText());

        assertThat(stored)
                .startsWith("aesgcm:v1:")
                .doesNotContain(hook.get("secret").asText().substring(6));
    }

    @Test
    void usersSeeOnlyTheirOwnEndpointsAndTheAdminSeesEveryone() {
        String bob = apiToken("bob");
        String carol = apiToken("carol");
        String bobs = createWebhook(bob, "/bob", "").get("id").asText();
        String carols = createWebhook(carol, "/carol", "").get("id").asText();

        Http.Response stranger = http.get("/webhooks/" + bobs, carol);
        assertThat(stranger.status()).isEqualTo(404);
        assertThat(stranger.json().get("code").asText()).isEqualTo("webhook_not_found");
        assertThat(http.delete("/webhooks/" + bobs, carol).status()).isEqualTo(404);
        assertThat(ids(http.get("/webhooks", carol).json())).contains(carols).doesNotContain(bobs);
        assertThat(ids(http.get("/webhooks", admin).json())).contains(bobs, carols);
        assertThat(http.get("/webhooks/" + bobs, admin).status()).isEqualTo(200);
        assertThat(http.get("/webhooks/" + bobs, bob).status()).isEqualTo(200);
    }

    @Test
    void agentTokensCannotManageEndpoints() {
        String dan = apiToken("dan");
        String agentToken = http.post("/agents", dan, anAgent("dan").json())
                .json()
                .get("token")
                .asText();

        Http.Response create = http.post("/webhooks", agentToken, "{\"url\":\"" + receiver.url("/agent") + "\"}");
        assertThat(create.status()).isEqualTo(403);
        assertThat(create.json().get("code").asText()).isEqualTo("forbidden");
        assertThat(http.get("/webhooks", agentToken).status()).isEqualTo(403);
        assertThat(ids(http.get("/webhooks", dan).json())).isEmpty();
    }

    @Test
    void deleteAnswers204AndTheEndpointIsGoneForGood() {
        String erin = apiToken("erin");
        String id = createWebhook(erin, "/deleted", "").get("id").asText();

        Http.Response deleted = http.delete("/webhooks/" + id, erin);

        assertThat(deleted.status()).isEqualTo(204);
        assertThat(deleted.body()).isEmpty();
        assertThat(http.get("/webhooks/" + id, erin).status()).isEqualTo(404);
        assertThat(http.delete("/webhooks/" + id, erin).status()).isEqualTo(404);
    }

    @Test
    void badInputAnswers400NamingEachFieldAndStoresNothing() {
        String fay = apiToken("fay");
        Http.Response res = http.post("/webhooks", fay, """
                {"url":"ftp://example.com/x","eventTypes":["agent.created","agent.exploded"],"secret":"mine"}""");

        assertThat(res.status()).isEqualTo(400);
        assertThat(res.json().get("code").asText()).isEqualTo("validation_invalid");
        assertThat(fields(res.json())).containsExactlyInAnyOrder("url", "eventTypes[1]", "secret");
        assertThat(fields(http.post("/webhooks", fay, "{\"eventTypes\":[]}").json()))
                .containsExactly("url");
        assertThat(http.post("/webhooks", fay, "{\"url\": ").json().get("code").asText())
                .isEqualTo("malformed_json");
        assertThat(http.get("/webhooks/not%20an%20id", fay).status()).isEqualTo(400);
        assertThat(ids(http.get("/webhooks", fay).json())).isEmpty();
    }

    // --- deliveries ---

    @Test
    void deliveriesAreSignedPerStandardWebhooksWithTheEventAsBody() {
        String gus = apiToken("gus");
        JsonNode hook = createWebhook(gus, "/signed", "");
        long before = warden.clock().instant().getEpochSecond();
        JsonNode agent = http.post("/agents", gus, anAgent("gus").json()).json();

        WebhookReceiver.Request request = receiver.await("/signed", 1).getFirst();
        long after = warden.clock().instant().getEpochSecond();

        assertThat(request.signedWith(hook.get("secret").asText())).isTrue();
        assertThat(request.signedWith(
                        createWebhook(gus, "/other", "").get("secret").asText()))
                .isFalse();
        assertThat(request.header("Content-Type")).isEqualTo("application/json");
        // The time of the attempt, on Warden's clock (which follows real time here: a second may pass meanwhile)
        assertThat(Long.parseLong(request.header("webhook-timestamp"))).isBetween(before, after);
        JsonNode event = request.json();
        assertThat(event.get("id").asText()).isEqualTo(request.webhookId());
        assertThat(event.get("type").asText()).isEqualTo("agent.created");
        assertThat(event.get("agentId").asText()).isEqualTo(agent.get("id").asText());
        assertThat(event.get("userId").asText()).isEqualTo("gus");
        assertThat(event.get("data").get("agent").get("name").asText()).isEqualTo("research-bot");
        assertThat(new String(request.body(), java.nio.charset.StandardCharsets.UTF_8))
                .doesNotContain(agent.get("token").asText());
    }

    @Test
    void aServerErrorIsRetriedUntilDeliveredUnderTheSameWebhookId() {
        String hal = apiToken("hal");
        String secret = createWebhook(hal, "/retry", "").get("secret").asText();
        receiver.script("/retry", 500, 503);
        Map<String, Long> before = counters();

        createAgent(hal);
        List<WebhookReceiver.Request> requests = receiver.await("/retry", 3);

        assertThat(requests)
                .extracting(WebhookReceiver.Request::webhookId)
                .containsOnly(requests.getFirst().webhookId());
        assertThat(requests).allMatch(r -> r.signedWith(secret));
        awaitCounter("delivered", before, 1);
        assertThat(delta(before, "retried")).isEqualTo(2);
        assertThat(delta(before, "dropped")).isZero();
    }

    @Test
    void afterFourFailedAttemptsTheEventIsDroppedCountedAndLaterEventsStillArrive() {
        String ida = apiToken("ida");
        createWebhook(ida, "/dropping", "");
        receiver.script("/dropping", 500, 502, 503, 504);
        Map<String, Long> before = counters();

        String agentId = createAgent(ida);
        http.post("/agents/" + agentId + "/rotate", ida);
        List<WebhookReceiver.Request> requests =
                receiver.awaitEvent("/dropping", e -> e.get("type").asText().equals("agent.rotated"));

        assertThat(requests).hasSize(5);
        assertThat(requests.subList(0, 4))
                .extracting(r -> r.json().get("type").asText())
                .containsOnly("agent.created");
        assertThat(delta(before, "dropped")).isEqualTo(1);
        assertThat(delta(before, "retried")).isEqualTo(3);
    }

    @Test
    void aClientErrorIsDroppedWithoutRetry() {
        String jay = apiToken("jay");
        createWebhook(jay, "/client-error", "");
        receiver.script("/client-error", 400);
        Map<String, Long> before = counters();

        String agentId = createAgent(jay);
        http.post("/agents/" + agentId + "/rotate", jay);
        List<WebhookReceiver.Request> requests =
                receiver.awaitEvent("/client-error", e -> e.get("type").asText().equals("agent.rotated"));

        assertThat(requests)
                .extracting(r -> r.json().get("type").asText())
                .containsExactly("agent.created", "agent.rotated");
        assertThat(delta(before, "dropped")).isEqualTo(1);
        assertThat(delta(before, "retried")).isZero();
    }

    @Test
    void goneDisablesTheEndpointAndNothingMoreIsSentToIt() {
        String kim = apiToken("kim");
        String id = createWebhook(kim, "/gone", "").get("id").asText();
        createWebhook(kim, "/gone-witness", "");
        receiver.script("/gone", 410);
        Map<String, Long> before = counters();

        String agentId = createAgent(kim);
        receiver.await("/gone", 1);
        awaitTrue(() ->
                http.get("/webhooks/" + id, kim).json().get("status").asText().equals("disabled"));
        http.post("/agents/" + agentId + "/rotate", kim);
        receiver.awaitEvent("/gone-witness", e -> e.get("type").asText().equals("agent.rotated"));

        assertThat(receiver.requests("/gone")).hasSize(1);
        assertThat(delta(before, "disabled")).isEqualTo(1);
        assertThat(delta(before, "retried")).isZero();
    }

    @Test
    void anEndpointReceivesItsEventsOneAfterAnotherInEventIdOrder() {
        String lee = apiToken("lee");
        createWebhook(lee, "/order", "");
        receiver.script("/order", 500);

        String agentId = createAgent(lee);
        for (int i = 0; i < 3; i++) {
            http.post("/agents/" + agentId + "/rotate", lee);
        }
        http.post("/agents/" + agentId + "/suspend", lee);
        http.post("/agents/" + agentId + "/resume", lee);
        http.delete("/agents/" + agentId, lee);
        List<WebhookReceiver.Request> requests =
                receiver.awaitEvent("/order", e -> e.get("type").asText().equals("agent.revoked"));

        List<WebhookReceiver.Request> distinct = withoutRetries(requests);
        assertThat(distinct)
                .extracting(r -> r.json().get("type").asText())
                .containsExactly(
                        "agent.created",
                        "agent.rotated",
                        "agent.rotated",
                        "agent.rotated",
                        "agent.suspended",
                        "agent.resumed",
                        "agent.revoked");
        assertThat(distinct)
                .extracting(r -> Long.parseLong(r.webhookId()))
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(requests).hasSize(8);
    }

    @Test
    void aUsersEndpointGetsOnlyTheirEventsOfItsTypesAndTheAdminsGetsEveryones() {
        String mia = apiToken("mia");
        String ned = apiToken("ned");
        createWebhook(mia, "/mia", "");
        createWebhook(ned, "/ned-revoked", ",\"eventTypes\":[\"agent.revoked\"]");
        String adminHook = createWebhook(admin, "/admin-all", "").get("id").asText();

        String m1 = createAgent(mia);
        String n1 = createAgent(ned);
        http.delete("/agents/" + n1, ned);
        String m2 = createAgent(mia);
        String n2 = createAgent(ned);
        http.delete("/agents/" + n2, ned);
        String m3 = createAgent(mia);

        List<String> mias = events(
                receiver.awaitEvent("/mia", e -> e.get("agentId").asText().equals(m3)));
        List<String> neds = events(receiver.awaitEvent(
                "/ned-revoked", e -> e.get("agentId").asText().equals(n2)));
        List<String> admins =
                events(receiver.awaitEvent(
                                "/admin-all", e -> e.get("agentId").asText().equals(m3)))
                        .stream()
                        .filter(e -> Set.of(m1, m2, m3, n1, n2).contains(e.split(" ")[1]))
                        .toList();
        http.delete("/webhooks/" + adminHook, admin);

        assertThat(mias).containsExactly("agent.created " + m1, "agent.created " + m2, "agent.created " + m3);
        assertThat(neds).containsExactly("agent.revoked " + n1, "agent.revoked " + n2);
        assertThat(admins)
                .containsExactly(
                        "agent.created " + m1,
                        "agent.created " + n1,
                        "agent.revoked " + n1,
                        "agent.created " + m2,
                        "agent.created " + n2,
                        "agent.revoked " + n2,
                        "agent.created " + m3);
    }

    @Test
    void aDeletedEndpointReceivesNothingMore() {
        String oli = apiToken("oli");
        String id = createWebhook(oli, "/deleted-later", "").get("id").asText();
        createWebhook(oli, "/deleted-witness", "");
        String first = createAgent(oli);
        receiver.awaitEvent("/deleted-later", e -> e.get("agentId").asText().equals(first));

        assertThat(http.delete("/webhooks/" + id, oli).status()).isEqualTo(204);
        String second = createAgent(oli);
        receiver.awaitEvent("/deleted-witness", e -> e.get("agentId").asText().equals(second));

        assertThat(events(receiver.requests("/deleted-later"))).containsExactly("agent.created " + first);
    }

    @Test
    void theConsumerOffsetIsCommittedOnlyOnceTheDeliveryHasFinished() throws Exception {
        String pat = apiToken("pat");
        createWebhook(pat, "/held", "");
        CountDownLatch release = receiver.hold("/held");

        createAgent(pat);
        long offset = Long.parseLong(receiver.await("/held", 1).getFirst().webhookId());
        try (Admin kafka = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, warden.infra().kafkaBootstrap()))) {
            Thread.sleep(300); // several poll loops of the worker, each of which commits what is finished
            assertThat(committed(kafka)).isLessThanOrEqualTo(offset);

            release.countDown();

            awaitTrue(() -> committed(kafka) > offset);
        }
    }

    @Test
    void anEventThatCannotBeDecodedIsDeadLetteredAndDeliveryGoesOn() throws Exception {
        String quinn = apiToken("quinn");
        createWebhook(quinn, "/after-poison", "");
        java.util.Properties p = new java.util.Properties();
        p.put("bootstrap.servers", warden.infra().kafkaBootstrap());
        try (org.apache.kafka.clients.producer.KafkaProducer<String, byte[]> producer =
                new org.apache.kafka.clients.producer.KafkaProducer<>(
                        p,
                        new org.apache.kafka.common.serialization.StringSerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(
                            warden.topics().events(),
                            "x",
                            "{\"type\":\"agent.created\",\"timestamp\":\"yesterday\"}".getBytes()))
                    .get();
        }
        String agent = createAgent(quinn);

        awaitTrue(() -> receiver.requests("/after-poison").stream()
                .anyMatch(r -> r.json().toString().contains(agent)));
        awaitTrue(() ->
                http.get("/admin/v1/dead-letters?sink=webhooks", admin).body().contains("yesterday"));
        awaitTrue(() -> http.get("/observe/metrics", null)
                .body()
                .matches("(?s).*warden_sink_dead_letters_total\\{sink=\"webhooks\"} [1-9].*"));
    }

    @Test
    void auditEventsOfABatchArriveOneByOneAndAnEntryThatCannotBeDecodedIsDeadLetteredAlone() {
        String rae = apiToken("rae");
        createWebhook(rae, "/audit", ",\"eventTypes\":[\"audit\"]");
        String agent = createAgent(rae);
        // Stamped by the platform's clock, which runs ahead: endpoints get only events made after they were.
        java.time.Instant at = warden.clock().instant();
        long batch = HandMadeBatches.produce(
                warden,
                agent,
                List.of(
                        HandMadeBatches.entry("aud_hook_a", agent, "rae", at),
                        "not an audit entry".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        HandMadeBatches.entry("aud_hook_b", agent, "rae", at)));
        String decided = http.post(
                        "/authorize", admin, "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"x:y\"}")
                .json()
                .get("auditId")
                .asText();

        List<WebhookReceiver.Request> got = withoutRetries(receiver.awaitEvent(
                "/audit", e -> e.at("/data/entry/id").asText().equals(decided)));

        assertThat(got)
                .extracting(
                        r -> r.webhookId() + " " + r.json().at("/data/entry/id").asText())
                .containsExactly(
                        batch + ".0 aud_hook_a",
                        batch + ".2 aud_hook_b",
                        got.getLast().webhookId() + " " + decided);
        assertThat(got).allSatisfy(r -> {
            assertThat(r.webhookId())
                    .matches("\\d+\\.\\d+")
                    .isEqualTo(r.json().get("id").asText());
            assertThat(r.json().get("type").asText()).isEqualTo("audit");
            assertThat(r.json().get("userId").asText()).isEqualTo("rae");
        });
        awaitTrue(() -> {
            JsonNode letters =
                    http.get("/admin/v1/dead-letters?sink=webhooks", admin).json();
            for (JsonNode l : letters) {
                if (l.get("offset").asLong() == batch && l.get("error").asText().contains("entry 1")) {
                    return true;
                }
            }
            return false;
        });
    }

    // --- helpers ---

    static String apiToken(String userId) {
        return warden.apiToken(userId);
    }

    static JsonNode createWebhook(String token, String path, String extraJson) {
        Http.Response res = http.post("/webhooks", token, "{\"url\":\"" + receiver.url(path) + "\"" + extraJson + "}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json();
    }

    static String createAgent(String ownerToken) {
        String owner = http.get("/auth/tokens/current", ownerToken)
                .json()
                .get("userId")
                .asText();
        Http.Response res = http.post("/agents", ownerToken, anAgent(owner).json());
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    /** {@code "type agentId"} of each request, retries collapsed. */
    static List<String> events(List<WebhookReceiver.Request> requests) {
        return withoutRetries(requests).stream()
                .map(r -> r.json().get("type").asText() + " "
                        + r.json().get("agentId").asText())
                .toList();
    }

    static List<WebhookReceiver.Request> withoutRetries(List<WebhookReceiver.Request> requests) {
        List<WebhookReceiver.Request> out = new ArrayList<>();
        for (WebhookReceiver.Request r : requests) {
            if (out.isEmpty() || !out.getLast().webhookId().equals(r.webhookId())) {
                out.add(r);
            }
        }
        return out;
    }

    static List<String> ids(JsonNode array) {
        List<String> ids = new ArrayList<>();
        array.forEach(n -> ids.add(n.get("id").asText()));
        return ids;
    }

    static List<String> fields(JsonNode problem) {
        List<String> fields = new ArrayList<>();
        problem.get("errors").forEach(e -> fields.add(e.get("field").asText()));
        return fields;
    }

    /** The webhook counters of {@code /observe/metrics}: delivered, retried, dropped, disabled. */
    static Map<String, Long> counters() {
        String text = http.get("/observe/metrics", null).body();
        Map<String, Long> out = new java.util.HashMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("warden_webhooks_")) {
                String[] parts = line.split(" ");
                out.put(parts[0].replace("warden_webhooks_", "").replace("_total", ""), (long)
                        Double.parseDouble(parts[1]));
            }
        }
        assertThat(out).containsOnlyKeys("delivered", "retried", "dropped", "disabled");
        return out;
    }

    static long delta(Map<String, Long> before, String counter) {
        return counters().get(counter) - before.get(counter);
    }

    static void awaitCounter(String counter, Map<String, Long> before, long atLeast) {
        awaitTrue(() -> delta(before, counter) >= atLeast);
    }

    static void awaitTrue(BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within 30 s").isLessThan(deadline);
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    static long committed(Admin kafka) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = kafka.listConsumerGroupOffsets(
                            warden.config().streams().applicationPrefix() + "webhooks")
                    .partitionsToOffsetAndMetadata()
                    .get();
            OffsetAndMetadata offset =
                    offsets.get(new TopicPartition(warden.topics().events(), 0));
            return offset == null ? -1 : offset.offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static String storedSecret(String id) throws Exception {
        String schema = warden.config().postgres().schema().orElseThrow();
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                PreparedStatement ps =
                        conn.prepareStatement("SELECT secret FROM " + schema + ".webhook_endpoints WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1);
            }
        }
    }
}
