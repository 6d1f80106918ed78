package dev.warden.api.oauth.token;

import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The pace of a polling grant (the device code, RFC 8628 section 3.5; CIBA poll mode, section 11): a client that
 * polls sooner than its interval is told {@code slow_down} and must keep an interval 5 seconds longer from then on.
 *
 * @param interval the interval the client must keep from this poll on (to be recorded with the poll)
 * @param slowDown the refusal when the client polled too soon
 */
record PollPace(Duration interval, Optional<OAuthException> slowDown) {
    static final Duration SLOW_DOWN_STEP = Duration.ofSeconds(5);

    /** The pace of a poll at {@code now}, the previous one at {@code lastPolledAt}, the interval being {@code interval}. */
    static PollPace of(Optional<Instant> lastPolledAt, Duration interval, Instant now) {
        boolean tooSoon =
                lastPolledAt.filter(last -> now.isBefore(last.plus(interval))).isPresent();
        if (!tooSoon) {
            return new PollPace(interval, Optional.empty());
        }
        Duration slower = interval.plus(SLOW_DOWN_STEP);
        return new PollPace(
                slower,
                Optional.of(new OAuthException(
                        ErrorCode.OAUTH_SLOW_DOWN, "poll at most every " + slower.toSeconds() + " seconds")));
    }
}
