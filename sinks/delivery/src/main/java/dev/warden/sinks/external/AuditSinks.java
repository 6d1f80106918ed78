package dev.warden.sinks.external;

import dev.warden.pipeline.contract.WireEnum;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds the configured external audit sinks from {@link AuditSinkSpec}s. A pure function of its arguments,
 * shared by the launcher and tests. Options, all optional (defaults in brackets):
 *
 * <ul>
 *   <li>every type: {@code connect-timeout-ms} [5000], {@code request-timeout-ms} [5000], {@code retries} [0, max 1]
 *   <li>{@code splunk-hec}: {@code source} [warden], {@code sourcetype} [warden:audit], {@code host}, {@code index}
 *   <li>{@code cloudevents}: {@code source} [/warden], {@code mode} [structured | batch]
 *   <li>{@code otlp-logs}: {@code encoding} [protobuf | json], {@code service-name} [warden],
 *       {@code header.<Name>} (an extra request header)
 * </ul>
 */
public final class AuditSinks {
    /** Prefix of the {@code otlp-logs} options that add a request header. */
    public static final String HEADER_PREFIX = "header.";

    private AuditSinks() {}

    /**
     * One sink per spec, in order. When one spec is invalid, the sinks already built are closed.
     *
     * @param clock the time sinks sign with (CloudEvents) and stamp as observed (OTLP)
     * @throws IllegalArgumentException naming the sink and the bad or unknown option, or a missing secret
     */
    public static List<AuditSink> build(List<AuditSinkSpec> specs, InstantSource clock) {
        List<AuditSink> sinks = new ArrayList<>(specs.size());
        try {
            for (AuditSinkSpec spec : specs) {
                sinks.add(build(spec, clock));
            }
            return List.copyOf(sinks);
        } catch (RuntimeException e) {
            sinks.forEach(AuditSink::close);
            throw e;
        }
    }

    /**
     * The sink of {@code spec}.
     *
     * @throws IllegalArgumentException naming the sink and the bad or unknown option, or a missing secret
     */
    public static AuditSink build(AuditSinkSpec spec, InstantSource clock) {
        Options options = new Options(spec.type().wireName(), spec.options());
        return switch (spec.type()) {
            case SPLUNK_HEC -> new SplunkHecSink(splunk(spec, options));
            case CLOUDEVENTS -> new CloudEventsSink(cloudEvents(spec, options), clock);
            case OTLP_LOGS -> new OtlpLogsSink(otlp(spec, options), clock);
        };
    }

    private static SplunkHecConfig splunk(AuditSinkSpec spec, Options options) {
        SplunkHecConfig.Builder b = SplunkHecConfig.builder(spec.url(), requireSecret(spec, "token"))
                .http(http(options));
        options.get("source").ifPresent(b::source);
        options.get("sourcetype").ifPresent(b::sourcetype);
        options.get("host").ifPresent(b::host);
        options.get("index").ifPresent(b::index);
        options.requireAllUsed();
        return b.build();
    }

    private static CloudEventsConfig cloudEvents(AuditSinkSpec spec, Options options) {
        CloudEventsConfig.Builder b = CloudEventsConfig.builder(spec.url(), requireSecret(spec, "HMAC secret"))
                .http(http(options));
        options.get("source").ifPresent(b::source);
        options.get("mode").ifPresent(v -> b.mode(options.choice("mode", CloudEventsConfig.Mode.class, v)));
        options.requireAllUsed();
        return b.build();
    }

    private static OtlpLogsConfig otlp(AuditSinkSpec spec, Options options) {
        OtlpLogsConfig.Builder b = OtlpLogsConfig.builder(spec.url()).http(http(options));
        options.get("encoding")
                .ifPresent(v -> b.encoding(options.choice("encoding", OtlpLogsConfig.Encoding.class, v)));
        options.get("service-name").ifPresent(b::serviceName);
        options.withPrefix(HEADER_PREFIX).forEach(b::header);
        spec.secret().ifPresent(authorization -> b.header("Authorization", authorization));
        options.requireAllUsed();
        return b.build();
    }

    private static HttpOptions http(Options options) {
        HttpOptions.Builder b = HttpOptions.builder();
        options.get("connect-timeout-ms")
                .ifPresent(v -> b.connectTimeout(Duration.ofMillis(options.number("connect-timeout-ms", v))));
        options.get("request-timeout-ms")
                .ifPresent(v -> b.requestTimeout(Duration.ofMillis(options.number("request-timeout-ms", v))));
        options.get("retries").ifPresent(v -> b.retries((int) options.number("retries", v)));
        return b.build();
    }

    private static String requireSecret(AuditSinkSpec spec, String what) {
        return spec.secret()
                .filter(s -> !s.isBlank())
                .orElseThrow(() -> new IllegalArgumentException(
                        "audit sink " + spec.type().wireName() + ": secret (the " + what + ") is required"));
    }

    /** The options of one spec, remembering which were read so that typos are refused, not ignored. */
    private static final class Options {
        private final String sink;
        private final Map<String, String> values;
        private final Set<String> used = new HashSet<>();

        Options(String sink, Map<String, String> values) {
            this.sink = sink;
            this.values = values;
        }

        Optional<String> get(String key) {
            used.add(key);
            return Optional.ofNullable(values.get(key));
        }

        Map<String, String> withPrefix(String prefix) {
            Map<String, String> out = new LinkedHashMap<>();
            values.forEach((key, value) -> {
                if (key.startsWith(prefix)) {
                    used.add(key);
                    out.put(key.substring(prefix.length()), value);
                }
            });
            return out;
        }

        long number(String key, String value) {
            try {
                return Long.parseLong(value.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "audit sink " + sink + ": option " + key + " must be a whole number, was '" + value + "'", e);
            }
        }

        <E extends Enum<E> & WireEnum> E choice(String key, Class<E> type, String value) {
            return WireEnum.parse(type, value.strip())
                    .orElseThrow(() -> new IllegalArgumentException("audit sink " + sink + ": option " + key
                            + " must be one of " + WireEnum.choices(type) + ", was '" + value + "'"));
        }

        void requireAllUsed() {
            Set<String> unknown = new TreeSet<>(values.keySet());
            unknown.removeAll(used);
            if (!unknown.isEmpty()) {
                throw new IllegalArgumentException("audit sink " + sink + ": unknown option(s) " + unknown);
            }
        }
    }
}
