package dev.warden.api.users;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.authorizer.domain.UserId;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SessionTest {
    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    final UsersConfig.Sessions config = UsersConfig.builder()
            .session(Duration.ofHours(1), Duration.ofMinutes(10), Duration.ofHours(3))
            .build()
            .session();
    final Session session = Session.start("ses_1", UserId.of("u"), T0, config);

    @Test
    void aNewSessionLastsItsTtl() {
        assertThat(session.expiresAt()).isEqualTo(T0.plus(Duration.ofHours(1)));
        assertThat(session.absoluteExpiresAt()).isEqualTo(T0.plus(Duration.ofHours(3)));
        assertThat(session.activeAt(T0.plus(Duration.ofMinutes(59)))).isTrue();
        assertThat(session.activeAt(T0.plus(Duration.ofHours(1)))).isFalse();
    }

    @Test
    void useAfterRefreshAfterSlidesTheExpiry() {
        assertThat(session.refreshedAt(T0.plus(Duration.ofMinutes(9)), config))
                .as("too soon: no write")
                .isEmpty();

        Session refreshed =
                session.refreshedAt(T0.plus(Duration.ofMinutes(30)), config).orElseThrow();

        assertThat(refreshed.expiresAt()).isEqualTo(T0.plus(Duration.ofMinutes(90)));
        assertThat(refreshed.refreshedAt()).isEqualTo(T0.plus(Duration.ofMinutes(30)));
    }

    @Test
    void refreshNeverPassesTheAbsoluteEnd() {
        Session late = new Session(
                "ses_1",
                UserId.of("u"),
                T0,
                T0.plus(Duration.ofMinutes(150)),
                T0.plus(Duration.ofMinutes(175)),
                T0.plus(Duration.ofHours(3)),
                Optional.empty());

        Session refreshed =
                late.refreshedAt(T0.plus(Duration.ofMinutes(170)), config).orElseThrow();

        assertThat(refreshed.expiresAt()).isEqualTo(T0.plus(Duration.ofHours(3)));
        assertThat(refreshed.activeAt(T0.plus(Duration.ofHours(3)))).isFalse();
    }

    @Test
    void aRevokedSessionIsNeverActive() {
        Session revoked = new Session(
                "ses_1",
                UserId.of("u"),
                T0,
                T0,
                T0.plus(Duration.ofHours(1)),
                T0.plus(Duration.ofHours(3)),
                Optional.of(T0));

        assertThat(revoked.activeAt(T0.plus(Duration.ofMinutes(1)))).isFalse();
    }
}
