package dev.warden.api.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Database;
import dev.warden.testing.TestPlatform;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The PostgreSQL path of fleet-wide invalidation: an access-changing event written through the outbox reaches a
 * listener on another connection when its transaction commits, never when it rolls back, and other events do not
 * wake it.
 */
class AccessChangesIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    @Test
    void aCommittedAccessChangeWakesEveryListenerAndNothingElseDoesAndARevokedTokenWakesTheTokenCaches()
            throws Exception {
        try (Database db = Database.connect(
                warden.infra().jdbcUrl(), warden.config().postgres().pool())) {
            AtomicInteger invalidated = new AtomicInteger();
            AtomicInteger revoked = new AtomicInteger();
            try (AccessChanges listener =
                    AccessChanges.listen(db, invalidated::incrementAndGet, revoked::incrementAndGet)) {
                Thread.sleep(300); // listening
                write(db, EventType.COST_RECORDED);
                assertThat(waitFor(invalidated, 1, 500))
                        .as("a cost does not change access")
                        .isZero();

                try {
                    db.inTransaction(conn -> {
                        EventOutbox.append(conn, event(EventType.AGENT_REVOKED));
                        throw new IllegalStateException("rolled back");
                    });
                } catch (IllegalStateException expected) {
                    // the change and its notification are gone together
                }
                assertThat(waitFor(invalidated, 1, 500))
                        .as("a rolled-back change is never heard")
                        .isZero();

                long before = System.nanoTime();
                write(db, EventType.AGENT_REVOKED);
                assertThat(waitFor(invalidated, 1, 5_000)).isEqualTo(1);
                long millis = (System.nanoTime() - before) / 1_000_000;
                assertThat(millis)
                        .as("heard at commit, not at the next poll of a topic")
                        .isLessThan(1_000);
                write(db, EventType.DELEGATION_REVOKED);
                assertThat(waitFor(invalidated, 2, 5_000)).isEqualTo(2);
                assertThat(listener.receivedCount()).isEqualTo(2);

                // A person's access token revoked (RFC 7009): the database's own trigger tells the token caches
                // (migration V38), and the agents' policies are left alone.
                assertThat(revoked.get()).isZero();
                db.inTransaction(conn -> {
                    try (var ps = conn.prepareStatement(
                            "INSERT INTO oauth_revoked_access_tokens (jti, expires_at) VALUES (?, now())")) {
                        ps.setString(1, "jti-" + System.nanoTime());
                        return ps.executeUpdate();
                    }
                });
                assertThat(waitFor(revoked, 1, 5_000)).isEqualTo(1);
                assertThat(waitFor(invalidated, 3, 300)).isEqualTo(2);
            }
        }
    }

    /**
     * A schema whose channel name would pass PostgreSQL's 63-byte limit is named by a digest (migration V38's
     * trigger in SQL, {@link AccessChanges#channel} in Java): both sides must agree, or a deployment with a long
     * schema name never hears a revocation.
     */
    @Test
    void aSchemaTooLongForTheChannelNameIsHeardThroughItsDigest() throws Exception {
        String schema = "warden_access_changes_long_schema_name_" + Long.toHexString(System.nanoTime());
        assertThat(("warden_access_changed:" + schema).length()).isGreaterThan(63);
        Database.PoolSettings base = warden.config().postgres().pool();
        try (Database db = Database.connect(
                warden.infra().jdbcUrl(),
                new Database.PoolSettings(base.user(), base.password(), 2, Optional.of(schema)))) {
            db.migrate();
            AtomicInteger invalidated = new AtomicInteger();
            AtomicInteger revoked = new AtomicInteger();
            try (AccessChanges listener =
                    AccessChanges.listen(db, invalidated::incrementAndGet, revoked::incrementAndGet)) {
                Thread.sleep(300); // listening
                db.inTransaction(conn -> {
                    try (var ps = conn.prepareStatement(
                            "INSERT INTO oauth_revoked_access_tokens (jti, expires_at) VALUES (?, now())")) {
                        ps.setString(1, "jti-" + System.nanoTime());
                        return ps.executeUpdate();
                    }
                });
                assertThat(waitFor(revoked, 1, 5_000))
                        .as("the trigger's notification, on the digest's channel")
                        .isEqualTo(1);
                write(db, EventType.AGENT_REVOKED);
                assertThat(waitFor(invalidated, 1, 5_000))
                        .as("the outbox's notification, on the same channel")
                        .isEqualTo(1);
            }
        }
    }

    /**
     * The listener blocks up to 10 s at a time for a notification; closing it aborts that wait, so a stop is not held
     * and the connection goes back to the pool at once (here the pool's only one).
     */
    @Test
    void closingEndsTheListenersWaitAtOnce() throws Exception {
        Database.PoolSettings base = warden.config().postgres().pool();
        try (Database db = Database.connect(
                warden.infra().jdbcUrl(), new Database.PoolSettings(base.user(), base.password(), 1, base.schema()))) {
            AccessChanges listener = AccessChanges.listen(db, () -> {}, () -> {});
            Thread.sleep(300); // listening, on the pool's only connection
            long before = System.nanoTime();
            listener.close();
            int one = db.withConnection(conn -> {
                try (var st = conn.createStatement();
                        var rs = st.executeQuery("SELECT 1")) {
                    rs.next();
                    return rs.getInt(1);
                }
            });
            long millis = (System.nanoTime() - before) / 1_000_000;
            assertThat(one).isEqualTo(1);
            assertThat(millis)
                    .as("closed and its connection free again well before its wait would have ended")
                    .isLessThan(2_000);
        }
    }

    private static void write(Database db, EventType type) {
        db.inTransaction(conn -> {
            EventOutbox.append(conn, event(type));
            return null;
        });
    }

    private static StreamEvent.Draft event(EventType type) {
        return new StreamEvent.Draft(type, Instant.now(), Map.of(), Optional.of("agt_x"), Optional.of("usr_x"));
    }

    /** The counter once it reaches {@code want}, or its value after {@code millis}. */
    private static int waitFor(AtomicInteger counter, int want, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (counter.get() < want && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return counter.get();
    }
}
