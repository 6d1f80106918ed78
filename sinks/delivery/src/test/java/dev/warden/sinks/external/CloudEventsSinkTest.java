package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.Json;
import dev.warden.sinks.external.AuditSink.SinkException;
import dev.warden.sinks.external.CloudEventsSink.Verification;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class CloudEventsSinkTest extends AuditSinkBehaviour {
    private static final String SECRET = "whsec_test_secret";
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05.900Z");
    private static final InstantSource CLOCK = InstantSource.fixed(NOW);

    // Known answer, computed outside Java:
    //   printf '%s' '1767323045.{"specversion":"1.0","id":"aud_kat"}' | openssl dgst -sha256 -hmac whsec_test_secret
    private static final String KAT_TIMESTAMP = "1767323045";
    private static final byte[] KAT_BODY =
            "{\"specversion\":\"1.0\",\"id\":\"aud_kat\"}".getBytes(StandardCharsets.UTF_8);
    private static final String KAT_SIGNATURE = "v1=c0d694aef43d4b2fd049be1f866bf7c9015eab391cce50386fe6f80b85a47a9d";

    @Override
    protected AuditSink newSink(URI receiverUrl, HttpOptions http) {
        return new CloudEventsSink(
                CloudEventsConfig.builder(receiverUrl, SECRET).http(http).build(), CLOCK);
    }

    @Override
    protected String secret() {
        return SECRET;
    }

    @Override
    protected String expectedPath() {
        return "/";
    }

    @Test
    void signatureMatchesTheOpensslKnownAnswer() {
        assertThat(CloudEventsSink.signature(SECRET, KAT_TIMESTAMP, KAT_BODY)).isEqualTo(KAT_SIGNATURE);
    }

    @Test
    void verifyAcceptsTheKnownAnswerWithinTheTolerance() {
        Instant signedAt = Instant.ofEpochSecond(Long.parseLong(KAT_TIMESTAMP));
        assertThat(verifyKat(KAT_SIGNATURE, KAT_BODY, signedAt.plus(Duration.ofMinutes(4))))
                .isEqualTo(Verification.VALID);
        assertThat(verifyKat(KAT_SIGNATURE, KAT_BODY, signedAt.minus(Duration.ofMinutes(4))))
                .isEqualTo(Verification.VALID);
    }

    @Test
    void verifyRejectsACorrectlySignedReplayOlderThanTheTolerance() {
        Instant signedAt = Instant.ofEpochSecond(Long.parseLong(KAT_TIMESTAMP));
        assertThat(verifyKat(
                        KAT_SIGNATURE,
                        KAT_BODY,
                        signedAt.plus(Duration.ofMinutes(5)).plusSeconds(1)))
                .isEqualTo(Verification.OUTSIDE_TOLERANCE);
        assertThat(verifyKat(KAT_SIGNATURE, KAT_BODY, signedAt.minus(Duration.ofMinutes(6))))
                .isEqualTo(Verification.OUTSIDE_TOLERANCE);
    }

    @Test
    void verifyRejectsAnAlteredBodyOrAWrongSecret() {
        Instant signedAt = Instant.ofEpochSecond(Long.parseLong(KAT_TIMESTAMP));
        byte[] altered = "{\"specversion\":\"1.0\",\"id\":\"aud_kaT\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(verifyKat(KAT_SIGNATURE, altered, signedAt)).isEqualTo(Verification.SIGNATURE_MISMATCH);
        assertThat(CloudEventsSink.verify(
                        "another-secret",
                        KAT_TIMESTAMP,
                        KAT_SIGNATURE,
                        KAT_BODY,
                        signedAt,
                        CloudEventsSink.DEFAULT_TOLERANCE))
                .isEqualTo(Verification.SIGNATURE_MISMATCH);
        // The timestamp is signed too: moving it forward to dodge the tolerance breaks the signature.
        assertThat(CloudEventsSink.verify(
                        SECRET, "1767323345", KAT_SIGNATURE, KAT_BODY, signedAt, CloudEventsSink.DEFAULT_TOLERANCE))
                .isEqualTo(Verification.SIGNATURE_MISMATCH);
    }

    @Test
    void verifyRejectsMalformedHeaders() {
        Instant signedAt = Instant.ofEpochSecond(Long.parseLong(KAT_TIMESTAMP));
        assertThat(CloudEventsSink.verify(
                        SECRET, "yesterday", KAT_SIGNATURE, KAT_BODY, signedAt, CloudEventsSink.DEFAULT_TOLERANCE))
                .isEqualTo(Verification.MALFORMED);
        assertThat(verifyKat(KAT_SIGNATURE.substring(3), KAT_BODY, signedAt)).isEqualTo(Verification.MALFORMED);
        assertThat(verifyKat("v1=not-hex", KAT_BODY, signedAt)).isEqualTo(Verification.SIGNATURE_MISMATCH);
    }

    @Test
    void verifyAcceptsAnyOfSeveralListedSignatures() {
        Instant signedAt = Instant.ofEpochSecond(Long.parseLong(KAT_TIMESTAMP));
        String rotated = "v1=" + "00".repeat(32) + ", " + KAT_SIGNATURE;
        assertThat(verifyKat(rotated, KAT_BODY, signedAt)).isEqualTo(Verification.VALID);
    }

    @Test
    void sendPostsOneStructuredEventPerEntryWithTheRequiredAttributes() throws IOException {
        try (AuditSink sink = newSink()) {
            sink.send(List.of(TestAudit.anEntry(), TestAudit.aDeniedEntry(), TestAudit.aRateLimitedEntry()));
        }
        List<TestReceiver.Request> requests = receiver.requests();
        assertThat(requests).hasSize(3);
        assertThat(requests)
                .allSatisfy(r ->
                        // The official cloudevents SDKs detect structured mode by this exact value; a charset parameter
                        // makes them reject the delivery (cloudevents/sdk-javascript HTTP.toEvent).
                        assertThat(r.header("Content-Type")).isEqualTo("application/cloudevents+json"));

        JsonNode event = Json.mapper().readTree(requests.get(0).body());
        assertThat(event.get("specversion").asText()).isEqualTo("1.0");
        assertThat(event.get("id").asText()).isEqualTo("aud_0001");
        assertThat(event.get("source").asText()).isEqualTo("/warden");
        assertThat(event.get("type").asText()).isEqualTo("dev.warden.audit.allowed");
        assertThat(event.get("subject").asText()).isEqualTo("agt_triage");
        assertThat(OffsetDateTime.parse(event.get("time").asText()).toInstant()).isEqualTo(TestAudit.DECIDED_AT);
        assertThat(event.get("datacontenttype").asText()).isEqualTo("application/json");
        assertThat(event.get("data")).isEqualTo(parsed(TestAudit.anEntry()));

        assertThat(Json.mapper().readTree(requests.get(1).body()).get("type").asText())
                .isEqualTo("dev.warden.audit.denied");
        assertThat(Json.mapper().readTree(requests.get(2).body()).get("type").asText())
                .isEqualTo("dev.warden.audit.rate_limited");
    }

    @Test
    void sendSignsEachRequestWithTheClocksTimeSoThatVerifyAndAnIndependentHmacAgree() throws Exception {
        try (AuditSink sink = newSink()) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        TestReceiver.Request request = receiver.requests().get(0);
        String timestamp = request.header(CloudEventsSink.TIMESTAMP_HEADER);
        String signature = request.header(CloudEventsSink.SIGNATURE_HEADER);

        assertThat(timestamp).isEqualTo("1767323045");
        assertThat(signature).isEqualTo("v1=" + independentHmacHex(SECRET, timestamp + "." + request.bodyText()));
        assertThat(CloudEventsSink.verify(
                        SECRET,
                        timestamp,
                        signature,
                        request.body(),
                        NOW.plusSeconds(30),
                        CloudEventsSink.DEFAULT_TOLERANCE))
                .isEqualTo(Verification.VALID);
        assertThat(CloudEventsSink.verify(
                        SECRET,
                        timestamp,
                        signature,
                        request.body(),
                        NOW.plus(Duration.ofHours(1)),
                        CloudEventsSink.DEFAULT_TOLERANCE))
                .isEqualTo(Verification.OUTSIDE_TOLERANCE);
    }

    @Test
    void sendInBatchModePostsOneSignedArrayOfEvents() throws IOException {
        CloudEventsConfig config = CloudEventsConfig.builder(receiver.url(), SECRET)
                .mode(CloudEventsConfig.Mode.BATCH)
                .source("https://warden.example/eu")
                .build();
        try (AuditSink sink = new CloudEventsSink(config, CLOCK)) {
            sink.send(List.of(TestAudit.anEntry(), TestAudit.aDeniedEntry()));
        }
        TestReceiver.Request request = receiver.requests().get(0);
        assertThat(receiver.requests()).hasSize(1);
        assertThat(request.header("Content-Type")).startsWith("application/cloudevents-batch+json");
        JsonNode events = Json.mapper().readTree(request.body());
        assertThat(events.isArray()).isTrue();
        assertThat(events).hasSize(2);
        assertThat(events.get(1).get("id").asText()).isEqualTo("aud_0002");
        assertThat(events.get(1).get("source").asText()).isEqualTo("https://warden.example/eu");
        assertThat(CloudEventsSink.verify(
                        SECRET,
                        request.header(CloudEventsSink.TIMESTAMP_HEADER),
                        request.header(CloudEventsSink.SIGNATURE_HEADER),
                        request.body(),
                        NOW,
                        CloudEventsSink.DEFAULT_TOLERANCE))
                .isEqualTo(Verification.VALID);
    }

    @Test
    void sendInStructuredModeStopsAtTheFirstRejectedEventAndSaysHowManyWereDelivered() {
        receiver.thenAnswer(202, "").thenAnswer(500, "down");
        List<AuditEntry> batch = List.of(TestAudit.anEntry(), TestAudit.aDeniedEntry(), TestAudit.aRateLimitedEntry());
        try (AuditSink sink = newSink()) {
            assertThatThrownBy(() -> sink.send(batch))
                    .isInstanceOf(SinkException.class)
                    .hasMessageContaining("HTTP 500")
                    .hasMessageContaining("delivered 1 of 3");
        }
        assertThat(receiver.requests()).hasSize(2);
    }

    private static Verification verifyKat(String signature, byte[] body, Instant now) {
        return CloudEventsSink.verify(SECRET, KAT_TIMESTAMP, signature, body, now, CloudEventsSink.DEFAULT_TOLERANCE);
    }

    private static JsonNode parsed(AuditEntry entry) throws IOException {
        return Json.mapper().readTree(AuditEntryCodec.encode(entry));
    }

    private static String independentHmacHex(String secret, String message) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
    }
}
