package dev.warden.sinks.external;

import dev.warden.pipeline.contract.WireEnum;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One configured external audit sink, in the flat shape a YAML list item maps to (kebab-case keys; see
 * {@code docs/audit-sinks.md}), turned into a sink by {@link AuditSinks#build}. Immutable; {@link #toString()}
 * masks the secret and every {@code header.*} option.
 *
 * @param type    which sink
 * @param url     the destination's base URL (HEC and OTLP) or full URL (CloudEvents)
 * @param secret  the HEC token ({@code splunk-hec}, required), the HMAC secret ({@code cloudevents}, required),
 *                or the {@code Authorization} header value ({@code otlp-logs}, optional, e.g. {@code Bearer …})
 * @param options type-specific and HTTP options as strings; unknown keys are refused by {@link AuditSinks#build}
 */
public record AuditSinkSpec(Type type, URI url, Optional<String> secret, Map<String, String> options) {

    public AuditSinkSpec {
        options = Map.copyOf(options);
    }

    /** The kinds of external audit sink. */
    public enum Type implements WireEnum {
        SPLUNK_HEC(SplunkHecSink.NAME),
        CLOUDEVENTS(CloudEventsSink.NAME),
        OTLP_LOGS(OtlpLogsSink.NAME),
        FILE(FileSink.NAME),
        KAFKA_TOPIC(KafkaTopicSink.NAME);

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }
    }

    /** A builder for a sink of {@code type} at {@code url}, with no secret and no options. */
    public static Builder builder(Type type, URI url) {
        return new Builder(type, url);
    }

    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>(options);
        shown.replaceAll((key, value) -> key.startsWith(AuditSinks.HEADER_PREFIX) ? "****" : value);
        return "AuditSinkSpec[type=" + type.wireName() + ", url=" + HttpDelivery.shown(url) + ", secret="
                + (secret.isPresent() ? "****" : "") + ", options=" + shown + "]";
    }

    /** Mutable builder; starts with no secret and no options. */
    public static final class Builder {
        private final Type type;
        private final URI url;
        private Optional<String> secret = Optional.empty();
        private final Map<String, String> options = new LinkedHashMap<>();

        private Builder(Type type, URI url) {
            this.type = type;
            this.url = url;
        }

        public Builder secret(String secret) {
            this.secret = Optional.of(secret);
            return this;
        }

        /** Sets one option, e.g. {@code option("index", "security")}. */
        public Builder option(String key, String value) {
            this.options.put(key, value);
            return this;
        }

        public AuditSinkSpec build() {
            return new AuditSinkSpec(type, url, secret, options);
        }
    }
}
