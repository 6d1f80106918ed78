package dev.warden.sinks.external;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditEntryCodec;
import dev.warden.pipeline.contract.Json;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Sends audit entries as CloudEvents 1.0 in the JSON event format over HTTP (CloudEvents HTTP Protocol Binding
 * 1.0): by default one structured-mode POST per entry ({@code Content-Type: application/cloudevents+json},
 * exactly: the official SDKs refuse a charset parameter), or in {@link CloudEventsConfig.Mode#BATCH batch mode} one POST per audit batch whose body is a
 * JSON array of events ({@code application/cloudevents-batch+json}). Each event is
 *
 * <pre>{@code
 * {"specversion":"1.0","id":"<audit id>","source":"/warden","type":"dev.warden.audit.<result>",
 *  "subject":"<agent id>","time":"2026-01-02T03:04:05.123Z","datacontenttype":"application/json",
 *  "data":{<the entry's JSON as on warden.audit>}}
 * }</pre>
 *
 * <p>Every request is signed: {@code Warden-Timestamp: <unix seconds>} and {@code Warden-Signature: v1=<hex>},
 * where {@code <hex>} is the lower-case hex HMAC-SHA256, keyed with the secret's UTF-8 bytes, of
 * {@code <timestamp> + "." + <the exact request body bytes>}. Receivers check it with {@link #verify} and reject
 * a timestamp more than {@link #DEFAULT_TOLERANCE} away from their clock, which bounds replays.
 *
 * <p>Structured mode stops at the first entry the receiver does not accept, so the entries before it were
 * delivered and the rest were not; the exception says how many. An empty batch sends nothing. Thread-safe.
 */
public final class CloudEventsSink implements AuditSink {
    /** The sink's {@link #name()}. */
    public static final String NAME = "cloudevents";
    /** Header carrying the signing time, in Unix seconds. */
    public static final String TIMESTAMP_HEADER = "Warden-Timestamp";
    /** Header carrying {@code v1=<hex HMAC-SHA256>}. */
    public static final String SIGNATURE_HEADER = "Warden-Signature";
    /** How far a receiver should let a timestamp stray from its own clock: 5 minutes. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);
    /** Content type of a structured-mode request. */
    public static final String STRUCTURED_CONTENT_TYPE = "application/cloudevents+json";
    /** Content type of a batched-mode request. */
    public static final String BATCH_CONTENT_TYPE = "application/cloudevents-batch+json";
    /** Prefix of every event's {@code type}; the audit result follows ({@code dev.warden.audit.denied}). */
    public static final String TYPE_PREFIX = "dev.warden.audit.";

    private static final String SCHEME = "v1=";
    private static final String HMAC = "HmacSHA256";
    private static final Pattern UNIX_SECONDS = Pattern.compile("[0-9]{1,12}");

    private final CloudEventsConfig config;
    private final InstantSource clock;
    private final HttpDelivery delivery;

    /** A sink that signs with {@code clock}'s time. */
    public CloudEventsSink(CloudEventsConfig config, InstantSource clock) {
        this.config = config;
        this.clock = clock;
        this.delivery = new HttpDelivery(NAME, config.url(), config.http());
    }

    /** A sink that signs with the system clock. */
    public CloudEventsSink(CloudEventsConfig config) {
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
     *                       timeout, and in structured mode how many entries of the batch were delivered
     */
    @Override
    public void send(List<AuditEntry> batch) {
        if (batch.isEmpty()) {
            return;
        }
        switch (config.mode()) {
            case STRUCTURED -> sendEach(batch);
            case BATCH -> post(bytes(events(batch)), BATCH_CONTENT_TYPE);
        }
    }

    private void sendEach(List<AuditEntry> batch) {
        for (int i = 0; i < batch.size(); i++) {
            try {
                post(bytes(event(batch.get(i))), STRUCTURED_CONTENT_TYPE);
            } catch (SinkException e) {
                throw SinkException.afterDelivering(
                        i, e.getMessage() + " (delivered " + i + " of " + batch.size() + " events)", e);
            }
        }
    }

    private void post(byte[] body, String contentType) {
        String timestamp = Long.toString(clock.instant().getEpochSecond());
        delivery.post(
                body,
                Map.of(
                        "Content-Type",
                        contentType,
                        TIMESTAMP_HEADER,
                        timestamp,
                        SIGNATURE_HEADER,
                        signature(config.secret(), timestamp, body)));
    }

    /** The {@code type} of an OCSF event: this and its class uid ({@code dev.warden.audit.ocsf.6003}). */
    static final String OCSF_TYPE_PREFIX = "dev.warden.audit.ocsf.";
    /** The {@code dataschema} of an OCSF event: the OCSF schema browser's class page. */
    static final String OCSF_SCHEMA = "https://schema.ocsf.io/";

    /** The CloudEvent of {@code entry} (JSON event format 1.0; {@code data} is the entry's JSON object). */
    ObjectNode event(AuditEntry entry) {
        ObjectNode event = Json.mapper()
                .createObjectNode()
                .put("specversion", "1.0")
                .put("id", entry.id())
                .put("source", config.source())
                .put("type", TYPE_PREFIX + entry.result().wireName())
                .put("subject", entry.agentId())
                .put("time", Json.timestamp(entry.timestamp()))
                .put("datacontenttype", "application/json");
        if (config.format() == AuditFormat.OCSF) {
            ObjectNode data = config.format().encode(entry);
            event.put("type", OCSF_TYPE_PREFIX + data.get("class_uid").asInt());
            event.put(
                    "dataschema",
                    OCSF_SCHEMA + OcsfEncoder.VERSION + "/classes/"
                            + data.get("class_uid").asInt());
            event.set("data", data);
            return event;
        }
        event.set("data", AuditEntryCodec.toJson(entry));
        return event;
    }

    private ArrayNode events(List<AuditEntry> batch) {
        ArrayNode events = Json.mapper().createArrayNode();
        batch.forEach(entry -> events.add(event(entry)));
        return events;
    }

    private static byte[] bytes(Object json) {
        try {
            return Json.mapper().writeValueAsBytes(json);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The {@code Warden-Signature} value for {@code body} signed at {@code timestamp}: {@code v1=} and the
     * lower-case hex HMAC-SHA256, keyed with {@code secret}'s UTF-8 bytes, of {@code timestamp + "." + body}.
     *
     * @param timestamp the {@code Warden-Timestamp} header value, exactly as sent
     */
    public static String signature(String secret, String timestamp, byte[] body) {
        return SCHEME + HexFormat.of().formatHex(hmac(secret, timestamp, body));
    }

    /**
     * Checks a received request's signature headers, for receivers and tests. The signature is checked first,
     * in constant time, then the timestamp: a correctly signed request whose timestamp is more than
     * {@code tolerance} away from {@code now} (either way) is a possible replay and is rejected. A
     * {@code Warden-Signature} may list several comma-separated {@code v1=} values (e.g. during a secret
     * rotation); one match suffices.
     *
     * @param timestampHeader the {@code Warden-Timestamp} value as received
     * @param signatureHeader the {@code Warden-Signature} value as received
     * @param body            the request body bytes exactly as received, before any parsing
     * @param now             the receiver's current time
     * @param tolerance       the largest accepted clock difference; {@link #DEFAULT_TOLERANCE} is recommended
     */
    public static Verification verify(
            String secret,
            String timestampHeader,
            String signatureHeader,
            byte[] body,
            Instant now,
            Duration tolerance) {
        String timestamp = timestampHeader.strip();
        if (!UNIX_SECONDS.matcher(timestamp).matches()) {
            return Verification.MALFORMED;
        }
        byte[] expected = hmac(secret, timestamp, body);
        boolean anyCandidate = false;
        boolean matched = false;
        for (String candidate : signatureHeader.split(",")) {
            String value = candidate.strip();
            if (value.startsWith(SCHEME)) {
                anyCandidate = true;
                matched |= MessageDigest.isEqual(expected, hex(value.substring(SCHEME.length())));
            }
        }
        if (!anyCandidate) {
            return Verification.MALFORMED;
        }
        if (!matched) {
            return Verification.SIGNATURE_MISMATCH;
        }
        return withinTolerance(timestamp, now, tolerance) ? Verification.VALID : Verification.OUTSIDE_TOLERANCE;
    }

    private static boolean withinTolerance(String timestamp, Instant now, Duration tolerance) {
        try {
            Instant signedAt = Instant.ofEpochSecond(Long.parseLong(timestamp));
            return Duration.between(signedAt, now).abs().compareTo(tolerance) <= 0;
        } catch (DateTimeException | ArithmeticException e) {
            return false;
        }
    }

    private static byte[] hex(String text) {
        try {
            return HexFormat.of().parseHex(text.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return new byte[0];
        }
    }

    private static byte[] hmac(String secret, String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), HMAC));
            mac.update(timestamp.getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) '.');
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    /** The outcome of {@link #verify}. */
    public enum Verification {
        /** Signed with the secret, within the tolerance. */
        VALID,
        /** A header is missing its expected shape (digits; {@code v1=<hex>}). */
        MALFORMED,
        /** No {@code v1} signature matches the body: wrong secret, or the body or timestamp was altered. */
        SIGNATURE_MISMATCH,
        /** Correctly signed, but the timestamp is too far from the receiver's clock: a possible replay. */
        OUTSIDE_TOLERANCE;

        /** True only for {@link #VALID}. */
        public boolean isValid() {
            return this == VALID;
        }
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
