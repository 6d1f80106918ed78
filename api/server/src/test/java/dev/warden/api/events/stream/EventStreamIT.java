package dev.warden.api.events.stream;

import static dev.warden.testing.TestAgents.anAgent;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditBatchRows;
import dev.warden.pipeline.contract.EventIds;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.SseClient;
import dev.warden.testing.TestPlatform;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The SSE stream through real HTTP: wire format, auth, filters, caps, heartbeats, replay under load. */
class EventStreamIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b ->
            b.sseMaxConnections(4).sseMaxPerSubscriber(2).sseAdminReserve(1).sseHeartbeatMs(300));

    /**
     * Closed clients are noticed by the server at its next writes (heartbeats every 300 ms here): wait until it
     * has let go of every stream, so that the connection cap of 4 is whole for the next test.
     */
    @AfterEach
    void awaitStreamsReleased() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (connections(0)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("SSE connections still open 10 s after the test");
    }

    static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    static String createAgent(String owner) {
        Http.Response res = warden.http()
                .post("/agents", warden.adminToken(), anAgent(owner).json());
        assertThat(res.status()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    @Test
    void liveEventsArriveInTheSpecWireFormatWithHeartbeats() throws Exception {
        try (SseClient sse =
                SseClient.connect(warden.http().baseUri(), "/events/stream", bearer(warden.adminToken()))) {
            assertThat(sse.status()).isEqualTo(200);
            String id = createAgent("xena");
            SseClient.Message created = sse.events(1, Duration.ofSeconds(10)).getFirst();
            assertThat(created.event()).isEqualTo("agent.created");
            JsonNode data = Json.mapper().readTree(created.data());
            assertThat(data.get("id").asText()).isEqualTo(created.id());
            assertThat(data.get("agentId").asText()).isEqualTo(id);
            assertThat(created.data()).doesNotContain("wdn_agt_");
            boolean heartbeat = false;
            for (int i = 0; i < 20 && !heartbeat; i++) {
                SseClient.Message m = sse.next(Duration.ofMillis(200));
                heartbeat = m != null && "heartbeat".equals(m.comment());
            }
            assertThat(heartbeat).isTrue();
        }
    }

    @Test
    void malformedRecordsOnTheTopicAreSkippedLiveAndOnReplay() throws Exception {
        try (SseClient sse =
                SseClient.connect(warden.http().baseUri(), "/events/stream", bearer(warden.adminToken()))) {
            String before = createAgent("before-garbage");
            SseClient.Message first = sse.events(1, Duration.ofSeconds(10)).getFirst();
            assertThat(first.data()).contains(before);
            try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<String, byte[]>(
                    Map.of("bootstrap.servers", warden.infra().kafkaBootstrap()),
                    new org.apache.kafka.common.serialization.StringSerializer(),
                    new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                for (String garbage : List.of(
                        "not json",
                        "{\"type\":\"no.such.type\"}",
                        "{\"type\":\"agent.created\",\"timestamp\":\"yesterday\",\"data\":{}}")) {
                    producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(
                                    warden.topics().events(),
                                    "garbage",
                                    garbage.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                            .get();
                }
            }
            String after = createAgent("after-garbage");
            SseClient.Message next = sse.events(1, Duration.ofSeconds(10)).getFirst();
            assertThat(next.event()).isEqualTo("agent.created");
            assertThat(next.data()).contains(after);
            assertThat(Long.parseLong(next.id()) - Long.parseLong(first.id()))
                    .as("three records skipped between")
                    .isEqualTo(4);

            Map<String, String> headers = new java.util.HashMap<>(bearer(warden.adminToken()));
            headers.put("Last-Event-ID", first.id());
            try (SseClient replay = SseClient.connect(warden.http().baseUri(), "/events/stream", headers)) {
                SseClient.Message replayed =
                        replay.events(1, Duration.ofSeconds(10)).getFirst();
                assertThat(replayed.id()).isEqualTo(next.id());
            }
        }
    }

    @Test
    void anInvalidTokenGetsOneErrorEventAndTheStreamCloses() throws Exception {
        try (SseClient sse =
                SseClient.connect(warden.http().baseUri(), "/events/stream?token=wdn_api_bogus", Map.of())) {
            SseClient.Message error = sse.events(1, Duration.ofSeconds(5)).getFirst();
            assertThat(error.event()).isEqualTo("error");
            assertThat(Json.mapper().readTree(error.data()))
                    .isEqualTo(Json.mapper().readTree("{\"code\":\"UNAUTHORIZED\",\"message\":\"Invalid token\"}"));
            for (int i = 0; i < 50 && !sse.ended(); i++) {
                Thread.sleep(50);
            }
            assertThat(sse.ended()).isTrue();
        }
    }

    @Test
    void aRequestThatIsNotSseIsToldWhatTheStreamTakes() {
        Http http = warden.http();
        Http.Response plain = http.get("/events/stream", warden.adminToken());
        assertThat(plain.status()).as("no Accept: text/event-stream").isEqualTo(406);
        assertThat(plain.json().get("code").asText()).isEqualTo("not_acceptable");
        Http.Response post = http.post("/events/stream", warden.adminToken(), "{}");
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.header("Allow")).hasValue("GET, OPTIONS");
        Http.Response options = http.send(http.builder("/events/stream", null)
                .method("OPTIONS", java.net.http.HttpRequest.BodyPublishers.noBody()));
        assertThat(options.status()).isEqualTo(204);
        assertThat(options.header("Allow")).hasValue("GET, OPTIONS");
    }

    @Test
    void oneSubscriberHoldsAtMostItsShareTheCapAppliesToAllAndTheAdministratorCanStillConnect() throws Exception {
        String una = userToken("una");
        String vic = userToken("vic");
        String wes = userToken("wes");
        List<SseClient> open = new ArrayList<>();
        try {
            open.add(connect(una));
            open.add(connect(una));
            try (SseClient third = connect(una)) {
                assertThat(third.status()).as("a subscriber over its share").isEqualTo(503);
            }
            open.add(connect(vic));
            open.add(connect(vic));
            assertThat(open).allSatisfy(c -> assertThat(c.status()).isEqualTo(200));
            try (SseClient full = connect(wes)) {
                assertThat(full.status())
                        .as("the stream is full for everyone else")
                        .isEqualTo(503);
            }
            open.add(connect(warden.adminToken()));
            assertThat(open.getLast().status())
                    .as("the administrator's reserved slot")
                    .isEqualTo(200);
            try (SseClient beyond = connect(warden.adminToken())) {
                assertThat(beyond.status()).isEqualTo(503);
            }
        } finally {
            open.forEach(SseClient::close);
        }
    }

    @Test
    void aClientThatVanishesFreesItsSlotWithinAFewHeartbeats() throws Exception {
        String token = userToken("xan");
        try (java.net.Socket socket = new java.net.Socket(
                warden.http().baseUri().getHost(), warden.http().baseUri().getPort())) {
            socket.getOutputStream()
                    .write(("GET /events/stream HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream"
                                    + "\r\nAuthorization: Bearer " + token + "\r\n\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!connections(1) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(connections(1)).as("one connection").isTrue();
            socket.setSoLinger(true, 0); // vanish: a reset, no orderly close
        }
        long closedAt = System.nanoTime();
        while (!connections(0)
                && System.nanoTime() - closedAt < Duration.ofSeconds(5).toNanos()) {
            Thread.sleep(20);
        }
        assertThat(connections(0)).as("freed within a few 300 ms heartbeats").isTrue();
    }

    /** Whether the scrape shows {@code n} open stream connections. */
    private static boolean connections(int n) {
        return warden.http()
                .get("/observe/metrics", null)
                .body()
                .matches("(?s).*\nwarden_sse_connections " + n + "(\\.0)?\n.*");
    }

    private static String userToken(String user) {
        return warden.http()
                .post("/auth/tokens", warden.adminToken(), "{\"name\":\"t\",\"userId\":\"" + user + "\"}")
                .json()
                .get("token")
                .asText();
    }

    private static SseClient connect(String token) {
        return SseClient.connect(warden.http().baseUri(), "/events/stream", bearer(token));
    }

    @Test
    void subPathsOfTheStreamAreNotTheStream() {
        Http.Response sub = warden.http()
                .send(java.net.http.HttpRequest.newBuilder(
                                warden.http().baseUri().resolve("/events/stream/x"))
                        .header("Accept", "text/event-stream")
                        .header("Authorization", "Bearer " + warden.adminToken())
                        .GET());
        assertThat(sub.status()).isEqualTo(404);
        assertThat(sub.json().get("code").asText()).isEqualTo("not_found");
    }

    /**
     * Event timestamps carry milliseconds; a {@code since} finer than that, inside the millisecond of an event that
     * came after it, still replays that event (a client that takes {@code since} from its own clock, at the moment
     * it acted, would otherwise miss what its act caused whenever both fall in one millisecond).
     */
    @Test
    void aSinceWithinTheMillisecondOfAnEventReplaysIt() throws Exception {
        String id;
        String timestamp;
        try (SseClient sse =
                SseClient.connect(warden.http().baseUri(), "/events/stream", bearer(warden.adminToken()))) {
            id = createAgent("same-millisecond");
            SseClient.Message created = sse.events(1, Duration.ofSeconds(10)).getFirst();
            timestamp = Json.mapper().readTree(created.data()).get("timestamp").asText();
        }
        java.time.Instant millisecond = java.time.Instant.parse(timestamp);
        assertThat(millisecond.getNano() % 1_000_000)
                .as("events carry milliseconds")
                .isZero();
        String since = millisecond.plusNanos(999_000).toString();
        try (SseClient replay = SseClient.connect(
                warden.http().baseUri(),
                "/events/stream?types=agent.created&since=" + since,
                bearer(warden.adminToken()))) {
            assertThat(replay.status()).isEqualTo(200);
            List<SseClient.Message> replayed = replay.events(1, Duration.ofSeconds(10));
            assertThat(replayed).as("replayed since " + since).hasSize(1);
            assertThat(replayed.getFirst().data()).contains(id);
        }
    }

    @Test
    void aSinceBeyondYear9999IsA400NamingIt() {
        Http.Response res = warden.http()
                .send(java.net.http.HttpRequest.newBuilder(
                                warden.http().baseUri().resolve("/events/stream?since=%2B999999999-12-31T23:59:59Z"))
                        .header("Accept", "text/event-stream")
                        .header("Authorization", "Bearer " + warden.adminToken())
                        .GET());
        assertThat(res.status()).isEqualTo(400);
        assertThat(res.json().at("/errors/0/field").asText()).isEqualTo("since");
    }

    @Test
    void aUserSeesOnlyTheirOwnEventsAndTypesFilterWithinTheAllowList() throws Exception {
        String yara = warden.http()
                .post("/auth/tokens", warden.adminToken(), "{\"name\":\"t\",\"userId\":\"yara\"}")
                .json()
                .get("token")
                .asText();
        try (SseClient mine =
                SseClient.connect(warden.http().baseUri(), "/events/stream?types=agent.revoked", bearer(yara))) {
            assertThat(mine.status()).isEqualTo(200);
            createAgent("zed");
            String own = createAgent("yara");
            warden.http().delete("/agents/" + createAgent("zed"), warden.adminToken());
            warden.http().delete("/agents/" + own, warden.adminToken());
            List<SseClient.Message> events = mine.events(2, Duration.ofSeconds(3));
            assertThat(events).hasSize(1);
            assertThat(events.getFirst().event()).isEqualTo("agent.revoked");
            assertThat(events.getFirst().data()).contains(own);
        }
    }

    @Test
    void anAgentSeesOnlyEventsAboutItselfAmongManyAgentSubscribers() throws Exception {
        Http http = warden.http();
        List<String> ids = new java.util.ArrayList<>();
        List<SseClient> streams = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Http.Response created = http.post(
                        "/agents", warden.adminToken(), anAgent("quinn").json());
                ids.add(created.json().get("id").asText());
                streams.add(SseClient.connect(
                        http.baseUri(),
                        "/events/stream?types=cost.recorded",
                        bearer(created.json().get("token").asText())));
            }
            for (int round = 0; round < 2; round++) {
                for (String id : ids) {
                    assertThat(http.post(
                                            "/agents/" + id + "/costs",
                                            warden.adminToken(),
                                            "{\"tool\":\"t" + round + "\",\"costUsd\":0.5}")
                                    .status())
                            .isEqualTo(201);
                }
            }
            for (int i = 0; i < ids.size(); i++) {
                List<SseClient.Message> events = streams.get(i).events(3, Duration.ofSeconds(3));
                assertThat(events).hasSize(2);
                String mine = ids.get(i);
                assertThat(events).allSatisfy(e -> assertThat(e.data()).contains("\"agentId\":\"" + mine + "\""));
            }
        } finally {
            streams.forEach(SseClient::close);
        }
    }

    @Test
    void everyDecisionIsMirroredAsAnAuditEventToItsOwner() throws Exception {
        Http http = warden.http();
        String wren = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"t\",\"userId\":\"wren\"}")
                .json()
                .get("token")
                .asText();
        Http.Response agent = http.post(
                "/agents",
                warden.adminToken(),
                "{\"ownerId\":\"wren\",\"name\":\"a\","
                        + "\"type\":\"autonomous\",\"permissions\":[{\"resource\":\"mcp:github:*\",\"actions\":[\"read\"]}]}");
        String agentId = agent.json().get("id").asText();
        String agentToken = agent.json().get("token").asText();
        try (SseClient sse = SseClient.connect(http.baseUri(), "/events/stream?types=audit", bearer(wren))) {
            String allowed = http.post(
                            "/authorize",
                            agentToken,
                            "{\"agentId\":\"" + agentId
                                    + "\",\"action\":\"read\",\"resource\":\"mcp:github:issues\",\"arguments\":{\"token\":\"s3cret\"}}")
                    .json()
                    .get("auditId")
                    .asText();
            String denied = http.post(
                            "/authorize",
                            agentToken,
                            "{\"agentId\":\"" + agentId + "\",\"action\":\"write\",\"resource\":\"mcp:github:issues\"}")
                    .json()
                    .get("auditId")
                    .asText();
            List<SseClient.Message> events = sse.events(2, Duration.ofSeconds(15));
            assertThat(events).extracting(SseClient.Message::event).containsExactly("audit", "audit");
            JsonNode first = Json.mapper().readTree(events.get(0).data());
            assertThat(first.get("agentId").asText()).isEqualTo(agentId);
            assertThat(first.get("userId").asText()).isEqualTo("wren");
            assertThat(first.at("/data/entry/id").asText()).isEqualTo(allowed);
            assertThat(first.at("/data/entry/result").asText()).isEqualTo("allowed");
            assertThat(events.get(0).data()).doesNotContain("s3cret");
            JsonNode second = Json.mapper().readTree(events.get(1).data());
            assertThat(second.at("/data/entry/id").asText()).isEqualTo(denied);
            assertThat(second.at("/data/entry/result").asText()).isEqualTo("denied");
        }
    }

    @Test
    void reconnectingWithLastEventIdUnderLoadReceivesEveryLaterEventExactlyOnceInOrder() throws Exception {
        AtomicBoolean flowing = new AtomicBoolean(true);
        String agent = createAgent("load");
        Thread producer = Thread.ofVirtual().start(() -> {
            int i = 0;
            while (flowing.get()) {
                warden.http().patch("/agents/" + agent, warden.adminToken(), "{\"name\":\"n" + (i++) + "\"}");
            }
        });
        List<Long> received = new ArrayList<>();
        String cursor = null;
        try {
            for (int round = 0; round < 12; round++) {
                Map<String, String> headers = new java.util.HashMap<>(bearer(warden.adminToken()));
                if (cursor != null) {
                    headers.put("Last-Event-ID", cursor);
                }
                try (SseClient sse = SseClient.connect(warden.http().baseUri(), "/events/stream", headers)) {
                    for (SseClient.Message m : sse.events(15, Duration.ofSeconds(10))) {
                        received.add(Long.parseLong(m.id()));
                        cursor = m.id();
                    }
                }
            }
        } finally {
            flowing.set(false);
            producer.join();
        }
        assertThat(received).hasSizeGreaterThan(100);
        assertThat(received)
                .as("every committed event between the first and last received, once, in order")
                .isEqualTo(offsetsOnTopic(received.getFirst(), received.getLast()));
    }

    /**
     * Audit events travel in batches (ids "R.i"): decisions from four threads, read over SSE in rounds of 40 with
     * Last-Event-ID, pausing between some rounds so that the next one starts from the store; every decision
     * arrives exactly once, ids strictly increasing, including resumes from inside a batch.
     */
    @Test
    void auditEventsResumeExactlyOnceInOrderFromInsideABatch() throws Exception {
        Http http = warden.http();
        Http.Response created = http.post(
                "/agents",
                warden.adminToken(),
                "{\"ownerId\":\"bee\",\"name\":\"b\","
                        + "\"type\":\"autonomous\",\"permissions\":[{\"resource\":\"mcp:batch:*\",\"actions\":[\"read\"]}]}");
        String agent = created.json().get("id").asText();
        String token = created.json().get("token").asText();
        Set<String> decided = ConcurrentHashMap.newKeySet();
        AtomicBoolean flowing = new AtomicBoolean(true);
        List<Thread> deciders = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            deciders.add(Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 150 && flowing.get(); i++) {
                    decided.add(http.post(
                                    "/authorize",
                                    token,
                                    "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"mcp:batch:" + i
                                            + "\"}")
                            .json()
                            .get("auditId")
                            .asText());
                }
            }));
        }
        List<String> ids = new ArrayList<>();
        List<String> entries = new ArrayList<>();
        int resumedInsideABatch = 0;
        String cursor = "-1";
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline
                    && (deciders.stream().anyMatch(Thread::isAlive) || entries.size() < decided.size())) {
                Map<String, String> headers = new java.util.HashMap<>(bearer(warden.adminToken()));
                headers.put("Last-Event-ID", cursor);
                try (SseClient sse = SseClient.connect(http.baseUri(), "/events/stream?types=audit", headers)) {
                    List<SseClient.Message> round = sse.events(40, Duration.ofSeconds(2));
                    if (!round.isEmpty()
                            && cursor.contains(".")
                            && EventIds.offset(position(cursor))
                                    == EventIds.offset(position(round.getFirst().id()))) {
                        resumedInsideABatch++;
                    }
                    for (SseClient.Message m : round) {
                        JsonNode data = Json.mapper().readTree(m.data());
                        if (data.at("/agentId").asText().equals(agent)) {
                            entries.add(data.at("/data/entry/id").asText());
                        }
                        ids.add(m.id());
                        cursor = m.id();
                    }
                }
                if (ids.size() % 3 == 0) {
                    Thread.sleep(600); // long enough for the store to hold what follows the cursor
                }
            }
        } finally {
            flowing.set(false);
            for (Thread t : deciders) {
                t.join();
            }
        }
        assertThat(decided).hasSize(600);
        assertThat(entries)
                .as("every decision once")
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(decided);
        assertThat(ids.stream().map(EventStreamIT::position).toList())
                .as("ids strictly increasing")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(ids).as("batches of more than one entry").anyMatch(id -> id.endsWith(".1"));
        assertThat(resumedInsideABatch).as("rounds that resumed inside a batch").isPositive();
    }

    /**
     * The store keeps an audit batch as the keys of its entries' rows, and replay reads the entries from the audit
     * log: a replayed audit event is the live one (same id, same data). An entry whose row is gone (audit retention)
     * is skipped on replay; the batch's other events keep their ids.
     */
    @Test
    void auditEventsReplayFromTheAuditLogAsTheyWereLiveAndSkipAnEntryWhoseRowIsGone() throws Exception {
        Http http = warden.http();
        Http.Response created = http.post(
                "/agents",
                warden.adminToken(),
                "{\"ownerId\":\"rho\",\"name\":\"r\","
                        + "\"type\":\"autonomous\",\"permissions\":[{\"resource\":\"mcp:rows:*\",\"actions\":[\"read\"]}]}");
        String agent = created.json().get("id").asText();
        String token = created.json().get("token").asText();
        List<SseClient.Message> live;
        try (SseClient sse =
                SseClient.connect(http.baseUri(), "/events/stream?types=audit", bearer(warden.adminToken()))) {
            for (int i = 0; i < 3; i++) {
                http.post(
                        "/authorize",
                        token,
                        "{\"agentId\":\"" + agent + "\",\"action\":\""
                                + (i == 1 ? "write" : "read") + "\",\"resource\":\"mcp:rows:" + i
                                + "\",\"arguments\":{\"b\":" + i + ",\"a\":\"x\"}}");
            }
            live = sse.events(3, Duration.ofSeconds(15));
        }
        assertThat(live).hasSize(3);
        long lastBatch = EventIds.offset(position(live.getLast().id()));
        List<Long> batches = live.stream()
                .map(m -> EventIds.offset(position(m.id())))
                .distinct()
                .toList();
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute(
                    "SET search_path TO " + warden.config().postgres().schema().orElseThrow());
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && !stored(st, lastBatch)) {
                Thread.sleep(100);
            }
            String rows = batches.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","));
            try (var rs = st.executeQuery("SELECT count(*) FROM service_stream_events WHERE id IN (" + rows
                    + ") AND batch IS NULL AND audit_rows IS NOT NULL")) {
                rs.next();
                assertThat(rs.getLong(1)).as("batches stored as row keys").isEqualTo(batches.size());
            }
            assertThat(replayed(agent)).as("replay is what was live").isEqualTo(asTrees(live));

            // The middle entry's key now names no row (audit_events is append-only; an operator dropping an old
            // partition is how rows go), and its batch is old enough that replay does not wait for the row.
            st.executeUpdate("UPDATE service_stream_events SET timestamp = timestamp - interval '1 hour' WHERE id IN ("
                    + rows + ")");
            long middle = position(live.get(1).id());
            try (var ps = conn.prepareStatement("UPDATE service_stream_events SET audit_rows = ? WHERE id = ?")) {
                List<AuditBatchRows.Key> keys = new ArrayList<>(storedKeys(st, EventIds.offset(middle)));
                String id = live.get(1).id();
                keys.set(Integer.parseInt(id.substring(id.indexOf('.') + 1)), new AuditBatchRows.Key(0, "aud_gone"));
                ps.setBytes(1, AuditBatchRows.encode(keys));
                ps.setLong(2, EventIds.offset(middle));
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
        }
        assertThat(replayed(agent))
                .as("replay without the gone entry, the others as they were")
                .isEqualTo(asTrees(List.of(live.get(0), live.get(2))));
    }

    private static List<AuditBatchRows.Key> storedKeys(Statement st, long offset) throws Exception {
        try (var rs = st.executeQuery("SELECT audit_rows FROM service_stream_events WHERE id = " + offset)) {
            rs.next();
            return AuditBatchRows.decode(rs.getBytes(1));
        }
    }

    private static boolean stored(Statement st, long offset) throws Exception {
        try (var rs = st.executeQuery("SELECT count(*) FROM service_stream_events WHERE id = " + offset)) {
            rs.next();
            return rs.getLong(1) == 1;
        }
    }

    /** The audit events of {@code agent} replayed from the beginning: id and data of each. */
    private static List<Map.Entry<String, JsonNode>> replayed(String agent) throws Exception {
        Map<String, String> headers = new java.util.HashMap<>(bearer(warden.adminToken()));
        headers.put("Last-Event-ID", "-1");
        List<SseClient.Message> mine = new ArrayList<>();
        try (SseClient sse = SseClient.connect(warden.http().baseUri(), "/events/stream?types=audit", headers)) {
            // Until no event but heartbeats has come for a second (the replay is over).
            long quietSince = System.nanoTime();
            while (System.nanoTime() - quietSince < Duration.ofSeconds(1).toNanos()) {
                SseClient.Message m = sse.next(Duration.ofMillis(500));
                if (m == null || m.event() == null) {
                    continue;
                }
                quietSince = System.nanoTime();
                if ("audit".equals(m.event()) && m.data().contains("\"agentId\":\"" + agent + "\"")) {
                    mine.add(m);
                }
            }
        }
        return asTrees(mine);
    }

    private static List<Map.Entry<String, JsonNode>> asTrees(List<SseClient.Message> messages) throws Exception {
        List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
        for (SseClient.Message m : messages) {
            out.add(Map.entry(m.id(), Json.mapper().readTree(m.data())));
        }
        return out;
    }

    private static long position(String id) {
        return EventIds.parse(id).orElseThrow(() -> new AssertionError("not an event id: " + id));
    }

    @Test
    void aCursorOlderThanTheRetainedStoreIsReportedNotSilentlySkipped() throws Exception {
        String agent = createAgent("old");
        warden.http().delete("/agents/" + agent, warden.adminToken());
        awaitStored();
        try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                Statement st = conn.createStatement()) {
            st.execute(
                    "SET search_path TO " + warden.config().postgres().schema().orElseThrow());
            st.executeUpdate(
                    "DELETE FROM service_stream_events WHERE id = (SELECT min(id) FROM service_stream_events)");
        }
        Map<String, String> headers = new java.util.HashMap<>(bearer(warden.adminToken()));
        headers.put("Last-Event-ID", "-1");
        try (SseClient sse = SseClient.connect(warden.http().baseUri(), "/events/stream", headers)) {
            SseClient.Message first = sse.events(1, Duration.ofSeconds(10)).getFirst();
            assertThat(first.event()).isEqualTo("replay.incomplete");
            assertThat(first.data()).contains("\"reason\":\"retention\"");
        }
    }

    /** The offsets of committed events in [from, to] on the events topic. */
    private static List<Long> offsetsOnTopic(long from, long to) {
        List<Long> offsets = new ArrayList<>();
        org.apache.kafka.common.TopicPartition tp =
                new org.apache.kafka.common.TopicPartition(warden.topics().events(), 0);
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
                Map.of(
                        "bootstrap.servers",
                        warden.infra().kafkaBootstrap(),
                        "isolation.level",
                        "read_committed",
                        "enable.auto.commit",
                        false),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && (offsets.isEmpty() || offsets.getLast() < to)) {
                for (var record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() <= to) {
                        offsets.add(record.offset());
                    }
                }
            }
        }
        return offsets;
    }

    private static void awaitStored() throws Exception {
        for (int i = 0; i < 100; i++) {
            try (Connection conn = DriverManager.getConnection(warden.infra().jdbcUrl());
                    Statement st = conn.createStatement()) {
                st.execute("SET search_path TO "
                        + warden.config().postgres().schema().orElseThrow());
                try (var rs = st.executeQuery("SELECT count(*) FROM service_stream_events")) {
                    rs.next();
                    if (rs.getLong(1) >= 2) {
                        return;
                    }
                }
            }
            Thread.sleep(100);
        }
    }
}
