package dev.warden.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks a webhook delivery as the Standard Webhooks specification says (docs/webhooks.md): the
 * {@code webhook-signature} header holds one or more {@code v1,<base64 HMAC-SHA256>} of
 * {@code <webhook-id>.<webhook-timestamp>.<body>}, keyed with the bytes of the endpoint's secret after
 * {@code whsec_}; and the timestamp is within the tolerance of this clock (5 minutes by default), which bounds
 * replays. Compare in constant time. Thread-safe.
 */
public final class WebhookVerifier {
    /** The tolerance the Standard Webhooks libraries use. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofMinutes(5);

    /** The delivery is not genuine, or too old or too new. */
    public static final class InvalidSignatureException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidSignatureException(String message) {
            super(message);
        }
    }

    private final byte[] key;
    private final Duration tolerance;
    private final Clock clock;

    /** A verifier for the endpoint whose secret is {@code secret} ({@code whsec_<base64>}). */
    public WebhookVerifier(String secret) {
        this(secret, DEFAULT_TOLERANCE, Clock.systemUTC());
    }

    public WebhookVerifier(String secret, Duration tolerance, Clock clock) {
        if (secret == null || !secret.startsWith("whsec_")) {
            throw new IllegalArgumentException("a webhook secret starts with whsec_");
        }
        try {
            this.key = Base64.getDecoder().decode(secret.substring("whsec_".length()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the webhook secret after whsec_ is not base64", e);
        }
        this.tolerance = tolerance;
        this.clock = clock;
    }

    /**
     * Verifies a delivery and returns its event. {@code headers} are the request's (names in any case);
     * {@code body} the exact bytes received, before any parsing.
     */
    public JsonNode verify(Map<String, String> headers, byte[] body) throws InvalidSignatureException {
        String id = header(headers, "webhook-id");
        String timestamp = header(headers, "webhook-timestamp");
        String signatures = header(headers, "webhook-signature");
        long seconds;
        try {
            seconds = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            throw new InvalidSignatureException("webhook-timestamp is not a number of seconds");
        }
        Instant sent = Instant.ofEpochSecond(seconds);
        Instant now = clock.instant();
        if (sent.isBefore(now.minus(tolerance))) {
            throw new InvalidSignatureException("webhook-timestamp is too old");
        }
        if (sent.isAfter(now.plus(tolerance))) {
            throw new InvalidSignatureException("webhook-timestamp is in the future");
        }
        byte[] expected = sign(id + "." + timestamp + ".", body);
        boolean matched = false;
        for (String candidate : signatures.split(" ")) {
            if (!candidate.startsWith("v1,")) {
                continue;
            }
            byte[] given;
            try {
                given = Base64.getDecoder().decode(candidate.substring(3));
            } catch (IllegalArgumentException e) {
                continue;
            }
            matched |= MessageDigest.isEqual(expected, given);
        }
        if (!matched) {
            throw new InvalidSignatureException("no signature matches");
        }
        try {
            return Transport.JSON.readTree(body);
        } catch (IOException e) {
            throw new InvalidSignatureException("the body is not JSON");
        }
    }

    /** {@code v1,<base64 HMAC-SHA256>} of a delivery, as a sender computes it (for tests and tools). */
    public String signature(String id, long timestamp, byte[] body) {
        return "v1," + Base64.getEncoder().encodeToString(sign(id + "." + timestamp + ".", body));
    }

    private byte[] sign(String prefix, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(prefix.getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static String header(Map<String, String> headers, String name) throws InvalidSignatureException {
        Optional<String> value = headers.entrySet().stream()
                .filter(e -> e.getKey().toLowerCase(Locale.ROOT).equals(name))
                .map(Map.Entry::getValue)
                .findFirst();
        return value.orElseThrow(() -> new InvalidSignatureException("missing header " + name));
    }
}
