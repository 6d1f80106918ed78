package dev.warden.sinks.external;

import dev.warden.pipeline.contract.AuditEntry;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends audit entries as OpenTelemetry log records over OTLP/HTTP: one {@code POST {url}/v1/logs} per batch
 * carrying an {@code ExportLogsServiceRequest}, as binary protobuf ({@code application/x-protobuf}, the default)
 * or OTLP/JSON ({@code application/json}).
 *
 * <p>The request has one resource ({@code service.name}, default {@code warden}) and one scope
 * ({@code dev.warden.audit}); each entry is one record with {@code timeUnixNano} = the decision's time,
 * {@code observedTimeUnixNano} = the send time, severity {@code INFO} (9) for allowed and {@code WARN} (13) for
 * denied or rate-limited calls, body {@code "<action> <resource> <result>"}, and one attribute per audit field
 * ({@code warden.audit.id}, {@code warden.agent.id}, {@code warden.user.id}, {@code warden.caller.id},
 * {@code warden.action}, {@code warden.resource}, {@code warden.result}, {@code warden.reason},
 * {@code warden.reason_detail}, {@code warden.delegation_chain} (comma-separated, when allowed through delegations), {@code warden.duration_ms} (double), {@code warden.tokens_cost} (int),
 * {@code warden.parameters} (the JSON text), {@code client.address} (the address the caller declared),
 * {@code user_agent.original}, {@code network.peer.address} (the caller's address as Warden saw it); absent optional
 * fields have no attribute).
 *
 * <p>A batch is accepted on 2xx; a partial success reported in a 200 answer is not inspected. An empty batch
 * sends nothing. Thread-safe.
 */
public final class OtlpLogsSink implements AuditSink {
    /** The sink's {@link #name()}. */
    public static final String NAME = "otlp-logs";
    /** The OTLP/HTTP logs path, below the configured URL. */
    public static final String PATH = "/v1/logs";

    private final OtlpLogsConfig config;
    private final InstantSource clock;
    private final OtlpLogsEncoder encoder;
    private final HttpDelivery delivery;
    private final Map<String, String> headers;

    /** A sink that stamps {@code observedTimeUnixNano} with {@code clock}'s time. */
    public OtlpLogsSink(OtlpLogsConfig config, InstantSource clock) {
        this.config = config;
        this.clock = clock;
        this.encoder = new OtlpLogsEncoder(config.serviceName());
        this.delivery = new HttpDelivery(NAME, HttpDelivery.resolve(config.url(), PATH), config.http());
        Map<String, String> all = new HashMap<>(config.headers());
        all.put("Content-Type", config.encoding().contentType());
        this.headers = Map.copyOf(all);
    }

    /** A sink that stamps {@code observedTimeUnixNano} with the system clock. */
    public OtlpLogsSink(OtlpLogsConfig config) {
        this(config, InstantSource.system());
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * {@inheritDoc}
     *
     * @throws SinkException naming the HTTP status when the receiver does not answer 2xx, or the I/O failure or
     *                       timeout
     */
    @Override
    public void send(List<AuditEntry> batch) {
        if (batch.isEmpty()) {
            return;
        }
        delivery.post(body(batch), headers);
    }

    /** The request body of {@code batch} in the configured encoding. */
    byte[] body(List<AuditEntry> batch) {
        Instant observed = clock.instant();
        List<OtlpLogsEncoder.LogRecord> records = batch.stream()
                .map(entry -> OtlpLogsEncoder.record(entry, observed, config.format()))
                .toList();
        return switch (config.encoding()) {
            case PROTOBUF -> encoder.protobuf(records);
            case JSON -> encoder.json(records);
        };
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
