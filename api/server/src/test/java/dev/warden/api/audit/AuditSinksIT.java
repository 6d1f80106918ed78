package dev.warden.api.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.warden.embedded.FreePorts;
import dev.warden.sinks.external.AuditSinkSpec;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * External audit sinks configured on the platform receive each committed batch; a sink that is down or slow
 * never delays the Postgres write and is counted in AuditSinkFailed.
 */
class AuditSinksIT {
    static final List<String> received = new CopyOnWriteArrayList<>();
    static final HttpServer hec = start();

    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.auditSinks(List.of(
            AuditSinkSpec.builder(
                            AuditSinkSpec.Type.SPLUNK_HEC,
                            URI.create("http://127.0.0.1:" + hec.getAddress().getPort()))
                    .secret("hec-token")
                    .build(),
            AuditSinkSpec.builder(AuditSinkSpec.Type.SPLUNK_HEC, URI.create("http://127.0.0.1:" + FreePorts.next()))
                    .secret("nobody-listens")
                    .option("request-timeout-ms", "300")
                    .build())));

    static HttpServer start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/services/collector/event", exchange -> {
                String auth = exchange.getRequestHeaders().getFirst("Authorization");
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                if (body.contains("refused-by-siem")) { // a SIEM that refuses one entry's content, every time
                    byte[] no = "{\"text\":\"Invalid data format\",\"code\":6}".getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(400, no.length);
                    exchange.getResponseBody().write(no);
                    exchange.close();
                    return;
                }
                if ("Splunk hec-token".equals(auth)) {
                    received.add(body);
                }
                byte[] ok = "{\"text\":\"Success\",\"code\":0}".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, ok.length);
                exchange.getResponseBody().write(ok);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterAll
    static void stop() {
        hec.stop(0);
    }

    @Test
    void committedBatchesFanOutToSinksAndAFailingSinkNeverBlocksTheWrite() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        String agent = http.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"ada\",\"name\":\"n\",\"type\":\"service\","
                                + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}")
                .json()
                .get("id")
                .asText();
        String auditId = http.post(
                        "/authorize",
                        admin,
                        "{\"agentId\":\"" + agent + "\",\"action\":\"read\"," + "\"resource\":\"a:b\"}")
                .json()
                .get("auditId")
                .asText();

        Http.Response visible = http.get("/audit?agentId=" + agent, admin);
        assertThat(visible.json().findValuesAsText("id")).contains(auditId);

        for (int i = 0; i < 100 && received.stream().noneMatch(b -> b.contains(auditId)); i++) {
            Thread.sleep(100);
        }
        assertThat(received)
                .anyMatch(body -> body.contains("\"sourcetype\":\"warden:audit\"") && body.contains(auditId));
        long failed = 0;
        for (int i = 0; i < 50 && failed == 0; i++) {
            failed = http.get("/audit/stats", admin)
                    .json()
                    .get("AuditSinkFailed")
                    .asLong();
            Thread.sleep(100);
        }
        assertThat(failed).as("the dead sink is counted once per batch").isPositive();
    }

    @Test
    void anEntryTheSinkRefusesIsIsolatedAndDeadLetteredWhileTheRestOfItsBatchArrives() throws Exception {
        Http http = warden.http();
        String admin = warden.adminToken();
        String agent = http.post(
                        "/agents",
                        admin,
                        "{\"ownerId\":\"ada\",\"name\":\"n\",\"type\":\"service\","
                                + "\"permissions\":[{\"resource\":\"*\",\"actions\":[\"*\"]}]}")
                .json()
                .get("id")
                .asText();
        List<String> fine = new java.util.ArrayList<>();
        String refused = null;
        for (int i = 0; i < 6; i++) {
            String action = i == 3 ? "refused-by-siem" : "read";
            String id = http.post(
                            "/authorize",
                            admin,
                            "{\"agentId\":\"" + agent + "\",\"action\":\"" + action + "\",\"resource\":\"a:b\"}")
                    .json()
                    .get("auditId")
                    .asText();
            if (i == 3) {
                refused = id;
            } else {
                fine.add(id);
            }
        }
        String culprit = refused;
        for (int i = 0;
                i < 100 && !fine.stream().allMatch(id -> received.stream().anyMatch(b -> b.contains(id)));
                i++) {
            Thread.sleep(100);
        }
        assertThat(fine).allMatch(id -> received.stream().anyMatch(b -> b.contains(id)));
        com.fasterxml.jackson.databind.JsonNode letters = null;
        for (int i = 0; i < 100; i++) {
            letters = http.get("/admin/v1/dead-letters?sink=audit-sink:splunk-hec", admin)
                    .json();
            if (letters.toString().contains(culprit)) {
                break;
            }
            Thread.sleep(100);
        }
        assertThat(letters).anySatisfy(l -> {
            assertThat(l.get("value").asText()).contains(culprit);
            assertThat(l.get("error").asText()).contains("HTTP 400");
        });
        assertThat(letters.toString()).doesNotContain(fine.getFirst());
        assertThat(http.get("/audit?agentId=" + agent, admin).json().findValuesAsText("id"))
                .as("the canonical write is untouched")
                .contains(culprit);
    }
}
