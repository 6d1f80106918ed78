package dev.warden.api.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

class JsonLogFormatterTest {
    private final JsonLogFormatter formatter = new JsonLogFormatter();

    @Test
    void oneObjectPerLineWithTheMessageFormatted() throws Exception {
        LogRecord record = new LogRecord(Level.WARNING, "sink {0} failed: \"quoted\"\nsecond line");
        record.setLoggerName("dev.warden.sinks");
        record.setParameters(new Object[] {"postgres-audit"});
        record.setThrown(new IllegalStateException("boom"));
        String line = formatter.format(record);
        assertThat(line).endsWith(System.lineSeparator());
        assertThat(line.strip()).doesNotContain("\n");
        JsonNode json = Json.mapper().readTree(line);
        assertThat(json.get("log.level").asText()).isEqualTo("WARN");
        assertThat(json.get("log.logger").asText()).isEqualTo("dev.warden.sinks");
        assertThat(json.get("ecs.version").asText()).isEqualTo("8.11");
        assertThat(json.get("service.name").asText()).isEqualTo("warden");
        assertThat(json.get("message").asText()).isEqualTo("sink postgres-audit failed: \"quoted\"\nsecond line");
        assertThat(json.get("error.type").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(json.get("error.message").asText()).isEqualTo("boom");
        assertThat(json.get("error.stack_trace").asText()).contains("IllegalStateException: boom");
        assertThat(json.get("@timestamp").asText())
                .isEqualTo(record.getInstant().toString());
    }

    @Test
    void anAccessRecordHasItsFieldsAsFields() throws Exception {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("method", "GET");
        fields.put("route", "/agents/{id}");
        fields.put("status", 404);
        fields.put("durationMs", 1.25);
        fields.put("principal", "user");
        fields.put("principalId", "usr_1");
        fields.put("client", "203.0.113.7");
        fields.put("requestId", "req_1");
        LogRecord record = new LogRecord(Level.INFO, "GET /agents/{id} 404 1.25ms user");
        record.setLoggerName(Logs.ACCESS_LOGGER);
        record.setParameters(new Object[] {fields});
        JsonNode json = Json.mapper().readTree(formatter.format(record));
        assertThat(json.get("warden.route").asText()).isEqualTo("/agents/{id}");
        assertThat(json.get("http.request.method").asText()).isEqualTo("GET");
        assertThat(json.get("http.response.status_code").asInt()).isEqualTo(404);
        assertThat(json.get("event.duration").asLong()).as("nanoseconds").isEqualTo(1_250_000);
        assertThat(json.get("client.ip").asText()).isEqualTo("203.0.113.7");
        assertThat(json.get("user.id").asText()).isEqualTo("usr_1");
        assertThat(json.get("http.request.id").asText()).isEqualTo("req_1");
        assertThat(json.get("warden.principal").asText()).isEqualTo("user");
        assertThat(json.get("message").asText()).isEqualTo("GET /agents/{id} 404 1.25ms user");
    }

    @Test
    void onlyTextAndJsonAreFormats() {
        assertThatThrownBy(() -> Logs.configure("xml")).isInstanceOf(IllegalArgumentException.class);
    }
}
