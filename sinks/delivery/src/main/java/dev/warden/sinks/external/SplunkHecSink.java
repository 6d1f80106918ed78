package dev.warden.sinks.external;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.Json;
import java.io.ByteArrayOutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * Sends audit entries to a Splunk HTTP Event Collector: one {@code POST {url}/services/collector/event} per
 * batch with {@code Authorization: Splunk <token>}, whose body is the batch's event objects one after another,
 * one per line (HEC's batch format, not a JSON array):
 *
 * <pre>{@code
 * {"time":1767323045.123,"host":"…","source":"warden","sourcetype":"warden:audit","index":"…","event":{…}}
 * }</pre>
 *
 * <p>{@code time} is the entry's timestamp in epoch seconds with millisecond decimals, {@code host} and
 * {@code index} appear only when configured, and {@code event} is the entry's JSON as on {@code warden.audit}
 * ({@link AuditEntryCodec#toJson}). A batch is accepted when HEC answers 2xx ({@code {"text":"Success","code":0}});
 * HEC accepts or rejects a batch as a whole. An empty batch sends nothing. Thread-safe.
 */
public final class SplunkHecSink implements AuditSink {
    /** The sink's {@link #name()}. */
    public static final String NAME = "splunk-hec";
    /** The path of HEC's JSON event endpoint, below the configured URL. */
    public static final String PATH = "/services/collector/event";

    private final SplunkHecConfig config;
    private final HttpDelivery delivery;
    private final Map<String, String> headers;

    public SplunkHecSink(SplunkHecConfig config) {
        this.config = config;
        this.delivery = new HttpDelivery(NAME, HttpDelivery.resolve(config.url(), PATH), config.http());
        this.headers = Map.of("Authorization", "Splunk " + config.token(), "Content-Type", "application/json");
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * {@inheritDoc}
     *
     * @throws SinkException naming the HTTP status when HEC does not answer 2xx, or the I/O failure or timeout
     */
    @Override
    public void send(List<AuditEntry> batch) {
        if (batch.isEmpty()) {
            return;
        }
        delivery.post(body(batch), headers);
    }

    /** The HEC body of {@code batch}: one event object per line. */
    byte[] body(List<AuditEntry> batch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(batch.size() * 512);
        try {
            for (AuditEntry entry : batch) {
                out.writeBytes(Json.mapper().writeValueAsBytes(event(entry)));
                out.write('\n');
            }
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private ObjectNode event(AuditEntry entry) {
        ObjectNode event = Json.mapper().createObjectNode();
        event.put("time", epochSeconds(entry));
        config.host().ifPresent(host -> event.put("host", host));
        event.put("source", config.source()).put("sourcetype", config.sourcetype());
        config.index().ifPresent(index -> event.put("index", index));
        event.set("event", config.format().encode(entry));
        return event;
    }

    /** Epoch seconds with exactly three decimals ({@code 1767323045.123}), as HEC's {@code time} expects. */
    static BigDecimal epochSeconds(AuditEntry entry) {
        return BigDecimal.valueOf(entry.timestamp().toEpochMilli(), 3);
    }

    @Override
    public void close() {
        delivery.close();
    }

    @Override
    public String toString() {
        return NAME + "[" + config + "]";
    }
}
