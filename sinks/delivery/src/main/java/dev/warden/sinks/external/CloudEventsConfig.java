package dev.warden.sinks.external;

import dev.warden.pipeline.contract.WireEnum;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Configuration of a {@link CloudEventsSink}. Immutable; {@link #toString()} masks the secret.
 *
 * @param url    the receiver's URL; events are POSTed to it as is
 * @param secret the HMAC-SHA256 key (its UTF-8 bytes) of the {@code Warden-Signature} header; required, since
 *               audit events must be attributable to Warden
 * @param source the events' {@code source} attribute, a URI-reference (default {@code /warden})
 * @param mode   one structured event per request (default) or one batch request per audit batch
 * @param http   timeouts and retries
 */
public record CloudEventsConfig(
        URI url, String secret, String source, Mode mode, HttpOptions http, AuditFormat format) {

    public CloudEventsConfig {
        ConfigChecks.requireHttpUrl("cloudevents url", url);
        ConfigChecks.requireText("cloudevents secret", secret);
        ConfigChecks.requireText("cloudevents source", source);
        requireUriReference(source);
    }

    /** How events travel (CloudEvents HTTP Protocol Binding 1.0, §3.2 structured and §3.3 batched mode). */
    public enum Mode implements WireEnum {
        /** One event per request, {@code Content-Type: application/cloudevents+json}. */
        STRUCTURED,
        /** One JSON array of events per batch, {@code Content-Type: application/cloudevents-batch+json}. */
        BATCH;

        @Override
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A builder for {@code url} and {@code secret} holding every other default. */
    public static Builder builder(URI url, String secret) {
        return new Builder(url, secret);
    }

    @Override
    public String toString() {
        return "CloudEventsConfig[url=" + HttpDelivery.shown(url) + ", secret=****, source=" + source + ", mode="
                + mode.wireName() + ", http=" + http + "]";
    }

    private static void requireUriReference(String source) {
        try {
            new URI(source);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("cloudevents source must be a URI-reference: " + e.getMessage(), e);
        }
    }

    /** Mutable builder; every optional field starts at its documented default. */
    public static final class Builder {
        private final URI url;
        private final String secret;
        private String source = "/warden";
        private Mode mode = Mode.STRUCTURED;
        private AuditFormat format = AuditFormat.WARDEN;

        /** What each event's {@code data} is: the Warden entry (default) or an OCSF event. */
        public Builder format(AuditFormat format) {
            this.format = format;
            return this;
        }

        private HttpOptions http = HttpOptions.defaults();

        private Builder(URI url, String secret) {
            this.url = url;
            this.secret = secret;
        }

        public Builder source(String source) {
            this.source = source;
            return this;
        }

        public Builder mode(Mode mode) {
            this.mode = mode;
            return this;
        }

        public Builder http(HttpOptions http) {
            this.http = http;
            return this;
        }

        public CloudEventsConfig build() {
            return new CloudEventsConfig(url, secret, source, mode, http, format);
        }
    }
}
