package dev.warden.runtime.outbound;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** The {@code Retry-After} header of an answer: how long a destination asked its sender to wait. */
public final class RetryAfter {
    private RetryAfter() {}

    /**
     * The wait a {@code Retry-After} header asks for (RFC 9110 section 10.2.3: seconds, or an HTTP date), if it is
     * one; a date in the past is no wait.
     */
    public static Optional<Duration> parse(Optional<String> header, Instant now) {
        if (header.isEmpty()) {
            return Optional.empty();
        }
        String value = header.get().strip();
        try {
            long seconds = Long.parseLong(value);
            return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
        } catch (NumberFormatException e) {
            try {
                Instant at = java.time.ZonedDateTime.parse(value, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant();
                return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
            } catch (java.time.format.DateTimeParseException notADate) {
                return Optional.empty();
            }
        }
    }
}
