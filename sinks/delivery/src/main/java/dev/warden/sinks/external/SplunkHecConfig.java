package dev.warden.sinks.external;

import java.net.URI;
import java.util.Optional;

/**
 * Configuration of a {@link SplunkHecSink}. Immutable; {@link #toString()} masks the token.
 *
 * @param url        the HEC base URL, e.g. {@code https://splunk.example:8088}; the sink posts to
 *                   {@code {url}/services/collector/event}
 * @param token      the HEC token, sent as {@code Authorization: Splunk <token>}
 * @param source     the events' {@code source} (default {@code warden})
 * @param sourcetype the events' {@code sourcetype} (default {@code warden:audit})
 * @param host       the events' {@code host}, when set; otherwise Splunk uses the sender's address
 * @param index      the target index, when set; otherwise the token's default index
 * @param http       timeouts and retries
 */
public record SplunkHecConfig(
        URI url,
        String token,
        String source,
        String sourcetype,
        Optional<String> host,
        Optional<String> index,
        HttpOptions http,
        AuditFormat format) {

    public SplunkHecConfig {
        ConfigChecks.requireHttpUrl("splunk-hec url", url);
        ConfigChecks.requireText("splunk-hec token", token);
        ConfigChecks.requireText("splunk-hec source", source);
        ConfigChecks.requireText("splunk-hec sourcetype", sourcetype);
    }

    /** A builder for {@code url} and {@code token} holding every other default. */
    public static Builder builder(URI url, String token) {
        return new Builder(url, token);
    }

    @Override
    public String toString() {
        return "SplunkHecConfig[url=" + HttpDelivery.shown(url) + ", token=****, source=" + source + ", sourcetype="
                + sourcetype + ", host=" + host.orElse("") + ", index=" + index.orElse("") + ", http=" + http + "]";
    }

    /** Mutable builder; every optional field starts at its documented default. */
    public static final class Builder {
        private final URI url;
        private final String token;
        private String source = "warden";
        private String sourcetype = "warden:audit";
        private AuditFormat format = AuditFormat.WARDEN;

        /** What each event carries: the Warden entry (default) or an OCSF event. */
        public Builder format(AuditFormat format) {
            this.format = format;
            return this;
        }

        private Optional<String> host = Optional.empty();
        private Optional<String> index = Optional.empty();
        private HttpOptions http = HttpOptions.defaults();

        private Builder(URI url, String token) {
            this.url = url;
            this.token = token;
        }

        public Builder source(String source) {
            this.source = source;
            return this;
        }

        public Builder sourcetype(String sourcetype) {
            this.sourcetype = sourcetype;
            return this;
        }

        public Builder host(String host) {
            this.host = Optional.of(host);
            return this;
        }

        public Builder index(String index) {
            this.index = Optional.of(index);
            return this;
        }

        public Builder http(HttpOptions http) {
            this.http = http;
            return this;
        }

        public SplunkHecConfig build() {
            return new SplunkHecConfig(url, token, source, sourcetype, host, index, http, format);
        }
    }
}
