package dev.warden.api.webhooks;

import dev.warden.runtime.db.SecretCipher;
import dev.warden.sinks.webhooks.WebhookOptions;
import io.helidon.config.Config;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;

/**
 * Node {@code warden.webhooks}. {@link #builder()} holds every default; {@link #toString()} masks the key.
 *
 * @param allowPrivateTargets {@code allow-private-targets}: let endpoints target loopback, private, link-local
 *                            and other non-public addresses (default false; for tests and closed networks)
 * @param encryptionKey       {@code encryption-key}: base64 of 32 bytes; when set, signing secrets are stored
 *                            encrypted with AES-256-GCM, else as-is (with a warning at start)
 * @param maxAttempts         {@code max-attempts}: attempts per delivery, the first included (default 4)
 * @param backoffMs           {@code backoff-ms}: wait before the first retry, doubled before each further one
 *                            (default 1000)
 * @param timeoutMs           {@code timeout-ms}: time for one attempt, connect to last byte (default 10000)
 */
public record WebhooksConfig(
        boolean allowPrivateTargets, Optional<String> encryptionKey, int maxAttempts, long backoffMs, long timeoutMs) {
    /** Bytes of an AES-256 key. */
    static final int KEY_BYTES = SecretCipher.KEY_BYTES;

    public WebhooksConfig {
        encryptionKey.ifPresent(WebhooksConfig::decodeKey);
        options(allowPrivateTargets, maxAttempts, backoffMs, timeoutMs);
    }

    /** The delivery worker's options. */
    public WebhookOptions toOptions() {
        return options(allowPrivateTargets, maxAttempts, backoffMs, timeoutMs);
    }

    /** Validates the numbers, naming the key of a bad one. */
    private static WebhookOptions options(
            boolean allowPrivateTargets, int maxAttempts, long backoffMs, long timeoutMs) {
        if (backoffMs < 0) {
            throw new IllegalArgumentException("warden.webhooks.backoff-ms must not be negative");
        }
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("warden.webhooks.timeout-ms must be positive");
        }
        return WebhookOptions.builder()
                .maxAttempts(maxAttempts)
                .backoff(Duration.ofMillis(backoffMs))
                .timeout(Duration.ofMillis(timeoutMs))
                .allowPrivateTargets(allowPrivateTargets)
                .build();
    }

    /** The AES-256 key, when configured. */
    Optional<byte[]> keyBytes() {
        return encryptionKey.map(WebhooksConfig::decodeKey);
    }

    private static byte[] decodeKey(String base64) {
        byte[] key;
        try {
            key = Base64.getDecoder().decode(base64.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("warden.webhooks.encryption-key must be base64 (of 32 bytes)");
        }
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException(
                    "warden.webhooks.encryption-key must be base64 of 32 bytes, was " + key.length + " bytes");
        }
        return key;
    }

    /** Reads node {@code warden.webhooks}; missing keys keep the builder's defaults. */
    public static WebhooksConfig from(Config node) {
        Builder b = builder();
        node.get("allow-private-targets").asBoolean().ifPresent(b::allowPrivateTargets);
        node.get("encryption-key").asString().filter(s -> !s.isBlank()).ifPresent(b::encryptionKey);
        node.get("max-attempts").asInt().ifPresent(b::maxAttempts);
        node.get("backoff-ms").asLong().ifPresent(b::backoffMs);
        node.get("timeout-ms").asLong().ifPresent(b::timeoutMs);
        return b.build();
    }

    @Override
    public String toString() {
        return "WebhooksConfig[allowPrivateTargets=" + allowPrivateTargets + ", encryptionKey="
                + (encryptionKey.isPresent() ? "****" : "(unset)") + ", maxAttempts=" + maxAttempts + ", backoffMs="
                + backoffMs + ", timeoutMs=" + timeoutMs + "]";
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder; every field starts at its documented default. */
    public static final class Builder {
        private boolean allowPrivateTargets;
        private Optional<String> encryptionKey = Optional.empty();
        private int maxAttempts = 4;
        private long backoffMs = 1_000;
        private long timeoutMs = 10_000;

        private Builder() {}

        public Builder allowPrivateTargets(boolean allow) {
            this.allowPrivateTargets = allow;
            return this;
        }

        /** Base64 of 32 bytes. */
        public Builder encryptionKey(String base64) {
            this.encryptionKey = Optional.of(base64);
            return this;
        }

        public Builder maxAttempts(int attempts) {
            this.maxAttempts = attempts;
            return this;
        }

        public Builder backoffMs(long millis) {
            this.backoffMs = millis;
            return this;
        }

        public Builder timeoutMs(long millis) {
            this.timeoutMs = millis;
            return this;
        }

        public WebhooksConfig build() {
            return new WebhooksConfig(allowPrivateTargets, encryptionKey, maxAttempts, backoffMs, timeoutMs);
        }
    }
}
