package dev.warden.sinks.external;

import dev.warden.pipeline.contract.WireEnum;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Configuration of an {@link OtlpLogsSink}. Immutable; {@link #toString()} masks every header value, since
 * OTLP backends take their credentials in headers.
 *
 * @param url         the OTLP/HTTP base URL, e.g. {@code http://collector:4318}; the sink posts to
 *                    {@code {url}/v1/logs}
 * @param encoding    {@code protobuf} (the default, as in OTLP/HTTP) or {@code json}
 * @param serviceName the resource's {@code service.name} (default {@code warden})
 * @param headers     extra request headers, e.g. {@code Authorization} (default none)
 * @param http        timeouts and retries
 */
public record OtlpLogsConfig(
        URI url,
        Encoding encoding,
        String serviceName,
        Map<String, String> headers,
        HttpOptions http,
        AuditFormat format) {
    // Set by the sink itself, or refused by java.net.http.
    private static final Set<String> RESERVED =
            Set.of("content-type", "content-length", "connection", "expect", "host", "upgrade");

    public OtlpLogsConfig {
        ConfigChecks.requireHttpUrl("otlp-logs url", url);
        ConfigChecks.requireText("otlp-logs service-name", serviceName);
        headers = Map.copyOf(headers);
        headers.keySet().forEach(OtlpLogsConfig::requireHeaderName);
    }

    /** The OTLP/HTTP payload encodings (OTLP specification, "OTLP/HTTP Request"). */
    public enum Encoding implements WireEnum {
        /** Binary protobuf, {@code Content-Type: application/x-protobuf}. */
        PROTOBUF("application/x-protobuf"),
        /** Protobuf's JSON mapping with OTLP's rules, {@code Content-Type: application/json}. */
        JSON("application/json");

        private final String contentType;

        Encoding(String contentType) {
            this.contentType = contentType;
        }

        /** The request's {@code Content-Type}. */
        public String contentType() {
            return contentType;
        }

        @Override
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A builder for {@code url} holding every other default. */
    public static Builder builder(URI url) {
        return new Builder(url);
    }

    @Override
    public String toString() {
        Map<String, String> masked = new LinkedHashMap<>();
        headers.keySet().stream().sorted().forEach(name -> masked.put(name, "****"));
        return "OtlpLogsConfig[url=" + HttpDelivery.shown(url) + ", encoding=" + encoding.wireName() + ", serviceName="
                + serviceName + ", headers=" + masked + ", http=" + http + "]";
    }

    private static void requireHeaderName(String name) {
        if (!name.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+")) {
            throw new IllegalArgumentException("otlp-logs header name is not an HTTP token: '" + name + "'");
        }
        if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("otlp-logs header " + name + " cannot be configured");
        }
    }

    /** Mutable builder; every optional field starts at its documented default. */
    public static final class Builder {
        private final URI url;
        private Encoding encoding = Encoding.PROTOBUF;
        private AuditFormat format = AuditFormat.WARDEN;

        /** What each log record's body is: a short line (default) or the OCSF event as JSON text. */
        public Builder format(AuditFormat format) {
            this.format = format;
            return this;
        }

        private String serviceName = "warden";
        private final Map<String, String> headers = new LinkedHashMap<>();
        private HttpOptions http = HttpOptions.defaults();

        private Builder(URI url) {
            this.url = url;
        }

        public Builder encoding(Encoding encoding) {
            this.encoding = encoding;
            return this;
        }

        public Builder serviceName(String serviceName) {
            this.serviceName = serviceName;
            return this;
        }

        /** Adds (or replaces) one request header, e.g. {@code header("Authorization", "Bearer …")}. */
        public Builder header(String name, String value) {
            this.headers.put(name, value);
            return this;
        }

        public Builder http(HttpOptions http) {
            this.http = http;
            return this;
        }

        public OtlpLogsConfig build() {
            return new OtlpLogsConfig(url, encoding, serviceName, headers, http, format);
        }
    }
}
