package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.Json;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class SplunkHecSinkTest extends AuditSinkBehaviour {
    private static final String TOKEN = "11111111-2222-3333-4444-555555555555";

    @Override
    protected AuditSink newSink(URI receiverUrl, HttpOptions http) {
        return new SplunkHecSink(
                SplunkHecConfig.builder(receiverUrl, TOKEN).http(http).build());
    }

    @Override
    protected String secret() {
        return TOKEN;
    }

    @Override
    protected String expectedPath() {
        return "/services/collector/event";
    }

    @Test
    void sendAuthenticatesWithTheSplunkSchemeAndTheToken() {
        try (AuditSink sink = newSink()) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        TestReceiver.Request request = receiver.requests().get(0);
        assertThat(request.header("Authorization")).isEqualTo("Splunk " + TOKEN);
        assertThat(request.header("Content-Type")).isEqualTo("application/json");
    }

    @Test
    void sendWritesOneConcatenatedEventObjectPerEntryWithTimeSourceSourcetypeAndEvent() throws IOException {
        try (AuditSink sink = newSink()) {
            sink.send(List.of(TestAudit.anEntry(), TestAudit.aDeniedEntry()));
        }
        String body = receiver.requests().get(0).bodyText();
        assertThat(body).doesNotStartWith("[").contains("\"time\":1767323045.123,");

        List<JsonNode> events = events(body);
        assertThat(events).hasSize(2);
        JsonNode first = events.get(0);
        assertThat(first.get("time").isNumber()).isTrue();
        assertThat(first.get("time").decimalValue()).isEqualByComparingTo(new BigDecimal("1767323045.123"));
        assertThat(first.get("source").asText()).isEqualTo("warden");
        assertThat(first.get("sourcetype").asText()).isEqualTo("warden:audit");
        assertThat(first.get("event")).isEqualTo(Json.mapper().readTree(AuditEntryCodec.encode(TestAudit.anEntry())));
        assertThat(first.has("host")).isFalse();
        assertThat(first.has("index")).isFalse();
        assertThat(events.get(1).get("time").decimalValue()).isEqualByComparingTo(new BigDecimal("1767323045.130"));
        assertThat(events.get(1).get("event"))
                .isEqualTo(Json.mapper().readTree(AuditEntryCodec.encode(TestAudit.aDeniedEntry())));
    }

    @Test
    void sendIncludesConfiguredHostIndexSourceAndSourcetype() throws IOException {
        SplunkHecConfig config = SplunkHecConfig.builder(receiver.url(), TOKEN)
                .host("warden-1")
                .index("security")
                .source("warden-eu")
                .sourcetype("_json")
                .build();
        try (AuditSink sink = new SplunkHecSink(config)) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        JsonNode event = events(receiver.requests().get(0).bodyText()).get(0);
        assertThat(event.get("host").asText()).isEqualTo("warden-1");
        assertThat(event.get("index").asText()).isEqualTo("security");
        assertThat(event.get("source").asText()).isEqualTo("warden-eu");
        assertThat(event.get("sourcetype").asText()).isEqualTo("_json");
    }

    @Test
    void sendToleratesATrailingSlashOnTheBaseUrl() {
        try (AuditSink sink = newSink(URI.create(receiver.url() + "/"), HttpOptions.defaults())) {
            sink.send(List.of(TestAudit.anEntry()));
        }
        assertThat(receiver.requests().get(0).path()).isEqualTo("/services/collector/event");
    }

    @Test
    void epochSecondsKeepsExactlyMillisecondPrecision() {
        assertThat(SplunkHecSink.epochSeconds(TestAudit.anEntry()).toPlainString())
                .isEqualTo("1767323045.123");
        assertThat(SplunkHecSink.epochSeconds(TestAudit.aDeniedEntry()).toPlainString())
                .isEqualTo("1767323045.130");
    }

    private static List<JsonNode> events(String body) throws IOException {
        try (MappingIterator<JsonNode> it =
                Json.mapper().readerFor(JsonNode.class).readValues(body)) {
            return it.readAll();
        }
    }
}
