package dev.warden.sinks.external;

import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.WireEnum;
import java.net.URI;
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
 *   <li>every type: {@code format} [warden | ocsf]; {@code name} [the type; {@code <type>-2}, … for further sinks of one type], which keys the
 *       sink's position, dead letters and controls; {@code connect-timeout-ms} [5000], {@code request-timeout-ms}
 *       [5000], {@code retries} [0, max 1] (immediate), {@code retry-ceiling-ms} [60000] (the longest wait between
 *       two attempts of a failing batch)
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
        List<String> names = names(specs);
        List<AuditSink> sinks = new ArrayList<>(specs.size());
        try {
            for (int i = 0; i < specs.size(); i++) {
                sinks.add(build(specs.get(i), clock, names.get(i)));
            }
            return List.copyOf(sinks);
        } catch (RuntimeException e) {
            sinks.forEach(AuditSink::close);
            throw e;
        }
    }

    /**
     * Each spec's sink name, in order: its {@code name} option, else its type, numbered from the second sink of a
     * type on ({@code splunk-hec-2}).
     *
     * @throws IllegalArgumentException for a name that is malformed or given twice
     */
    public static List<String> names(List<AuditSinkSpec> specs) {
        List<String> out = new ArrayList<>(specs.size());
        Set<String> taken = new HashSet<>();
        for (AuditSinkSpec spec : specs) {
            Optional<String> given = Optional.ofNullable(spec.options().get("name"));
            if (given.isPresent() && (!NAME.matcher(given.get()).matches() || taken.contains(given.get()))) {
                throw new IllegalArgumentException("audit sink " + spec.type().wireName() + ": option name must be "
                        + "1 to 64 of [a-z0-9-] and unique among the sinks, was '" + given.get() + "'");
            }
            String name = given.orElse(spec.type().wireName());
            for (int n = 2; taken.contains(name); n++) {
                name = spec.type().wireName() + "-" + n;
            }
            taken.add(name);
            out.add(name);
        }
        return out;
    }

    /**
     * The sink of {@code spec}.
     *
     * @throws IllegalArgumentException naming the sink and the bad or unknown option, or a missing secret
     */
    public static AuditSink build(AuditSinkSpec spec, InstantSource clock) {
        return build(
                spec, clock, spec.options().getOrDefault("name", spec.type().wireName()));
    }

    private static AuditSink build(AuditSinkSpec spec, InstantSource clock, String name) {
        Options options = new Options(spec.type().wireName(), spec.options());
        options.get("name");
        Duration ceiling = options.get("retry-ceiling-ms")
                .map(v -> Duration.ofMillis(options.number("retry-ceiling-ms", v)))
                .orElse(DEFAULT_RETRY_CEILING);
        if (ceiling.compareTo(Duration.ofMillis(100)) < 0 || ceiling.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException(
                    "audit sink " + spec.type().wireName() + ": option retry-ceiling-ms must be 100 to 3600000");
        }
        AuditSink sink = switch (spec.type()) {
            case SPLUNK_HEC -> new SplunkHecSink(splunk(spec, options));
            case CLOUDEVENTS -> new CloudEventsSink(cloudEvents(spec, options), clock);
            case OTLP_LOGS -> new OtlpLogsSink(otlp(spec, options), clock);
            case FILE -> file(spec, options);
            case KAFKA_TOPIC -> kafka(spec, options);
        };
        return new Named(sink, name, ceiling);
    }

    /** The longest wait between two attempts of a failing batch, unless {@code retry-ceiling-ms} says. */
    public static final Duration DEFAULT_RETRY_CEILING = Duration.ofSeconds(60);

    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[a-z0-9-]{1,64}");

    /** A built sink under its configured name, with its retry ceiling. */
    private record Named(AuditSink sink, String name, Duration retryCeiling) implements AuditSink {
        @Override
        public void send(List<AuditEntry> batch) {
            sink.send(batch);
        }

        @Override
        public void close() {
            sink.close();
        }
    }

    private static SplunkHecConfig splunk(AuditSinkSpec spec, Options options) {
        SplunkHecConfig.Builder b = SplunkHecConfig.builder(spec.url(), requireSecret(spec, "token"))
                .http(http(options));
        options.get("source").ifPresent(b::source);
        options.get("sourcetype").ifPresent(b::sourcetype);
        format(options).ifPresent(f -> {
            b.format(f);
            if (f == AuditFormat.OCSF && options.get("sourcetype").isEmpty()) {
                b.sourcetype("ocsf:warden");
            }
        });
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
        format(options).ifPresent(b::format);
        options.requireAllUsed();
        return b.build();
    }

    private static OtlpLogsConfig otlp(AuditSinkSpec spec, Options options) {
        OtlpLogsConfig.Builder b = OtlpLogsConfig.builder(spec.url()).http(http(options));
        options.get("encoding")
                .ifPresent(v -> b.encoding(options.choice("encoding", OtlpLogsConfig.Encoding.class, v)));
        options.get("service-name").ifPresent(b::serviceName);
        format(options).ifPresent(b::format);
        options.withPrefix(HEADER_PREFIX).forEach(b::header);
        spec.secret().ifPresent(authorization -> b.header("Authorization", authorization));
        options.requireAllUsed();
        return b.build();
    }

    /** A {@code file} sink: {@code url} is {@code file:///absolute/path}; OCSF unless {@code format} says. */
    private static AuditSink file(AuditSinkSpec spec, Options options) {
        if (!"file".equals(spec.url().getScheme())
                || spec.url().getPath() == null
                || spec.url().getPath().isEmpty()) {
            throw new IllegalArgumentException("audit sink file: url must be file:///absolute/path, was " + spec.url());
        }
        AuditFormat format = format(options).orElse(AuditFormat.OCSF);
        options.requireAllUsed();
        return new FileSink(java.nio.file.Path.of(spec.url()), format);
    }

    /**
     * A {@code kafka-topic} sink: {@code url} is {@code kafka://host:port/topic} ({@code bootstrap} may list more
     * brokers); {@code kafka.<setting>} options are producer settings; OCSF unless {@code format} says.
     */
    private static AuditSink kafka(AuditSinkSpec spec, Options options) {
        URI url = spec.url();
        String topic = url.getPath() == null ? "" : url.getPath().replaceFirst("^/", "");
        if (!"kafka".equals(url.getScheme()) || url.getHost() == null || url.getPort() < 0 || topic.isEmpty()) {
            throw new IllegalArgumentException(
                    "audit sink kafka-topic: url must be kafka://host:port/topic, was " + url);
        }
        String bootstrap = options.get("bootstrap").orElse(url.getHost() + ":" + url.getPort());
        AuditFormat format = format(options).orElse(AuditFormat.OCSF);
        Duration timeout = options.get("request-timeout-ms")
                .map(v -> Duration.ofMillis(options.number("request-timeout-ms", v)))
                .orElse(Duration.ofSeconds(30));
        Map<String, String> settings = options.withPrefix("kafka.");
        options.requireAllUsed();
        return new KafkaTopicSink(bootstrap, topic, format, timeout, settings);
    }

    /** The {@code format} option: {@code warden} (default) or {@code ocsf}. */
    private static Optional<AuditFormat> format(Options options) {
        return options.get("format").map(v -> options.choice("format", AuditFormat.class, v));
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
