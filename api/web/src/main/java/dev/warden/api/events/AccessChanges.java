package dev.warden.api.events;

import dev.warden.pipeline.contract.EventType;
import dev.warden.runtime.db.Database;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Fleet-wide cache invalidation through PostgreSQL: a change to an agent or a delegation sends a
 * {@code NOTIFY "warden_access_changed:<schema>"} in its own transaction ({@link #notify}, called by the outbox), which
 * PostgreSQL delivers to every listening instance when the change commits; each instance then drops its cached
 * policies and agent tokens ({@link #listen}). Unlike {@code warden.events}, the channel carries nothing else, so
 * a revocation never waits behind audit traffic (docs/events.md, "Across instances"). The SSE hub's reader of
 * {@code warden.events} ({@link EventFeed}) is the second path. A listener that loses its connection reconnects
 * and invalidates once, for whatever it may have missed.
 */
public final class AccessChanges implements AutoCloseable {
    /** The channel's name, followed by the schema: deployments sharing a database never hear each other. */
    static final String CHANNEL = "warden_access_changed";

    private static final Logger LOG = Logger.getLogger(AccessChanges.class.getName());
    /**
     * How long the listener blocks for a notification before it blocks again: a notification ends the wait at once,
     * and {@link #close()} aborts the connection, so this only sets how often an idle listener wakes.
     */
    private static final int WAIT_MILLIS = 10_000;

    private static final Duration RETRY = Duration.ofSeconds(1);

    /**
     * The payload the database's own triggers send when a person's grant, access token or session ends (migration
     * V38): those drop the token states ({@code credentialsRevoked}), not the agents' policies.
     */
    static final String TOKEN_STATE = "token.state";

    private final Database db;
    private final Runnable invalidate;
    private final Runnable credentialsRevoked;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final LongAdder received = new LongAdder();
    private final Thread thread;
    private volatile Connection connection;

    private AccessChanges(Database db, Runnable invalidate, Runnable credentialsRevoked) {
        this.db = db;
        this.invalidate = invalidate;
        this.credentialsRevoked = credentialsRevoked;
        this.thread = Thread.ofPlatform().name("warden-access-changes").daemon().unstarted(this::run);
    }

    /** Sends the notification of a change of {@code type} within the caller's open transaction on {@code conn}. */
    static void notify(Connection conn, EventType type) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT pg_notify(?, ?)")) {
            ps.setString(1, channel(conn));
            ps.setString(2, type.wireName());
            ps.execute();
        }
    }

    /**
     * The channel of the schema {@code conn} works in; a schema too long for PostgreSQL's 63-byte identifiers is
     * named by a digest of its name instead.
     */
    static String channel(Connection conn) throws SQLException {
        String schema = conn.getSchema();
        String channel = CHANNEL + ":" + schema;
        if (channel.getBytes(StandardCharsets.UTF_8).length <= 63) {
            return channel;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(schema.getBytes(StandardCharsets.UTF_8));
            return CHANNEL + ":" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Starts listening; on the listener's thread, {@code invalidate} runs for every change to agents or delegations
     * any instance commits, and {@code credentialsRevoked} for every person's grant, access token or session ended.
     * Both run when the listener reconnects.
     */
    public static AccessChanges listen(Database db, Runnable invalidate, Runnable credentialsRevoked) {
        AccessChanges listener = new AccessChanges(db, invalidate, credentialsRevoked);
        listener.thread.start();
        return listener;
    }

    /** Notifications received so far. */
    public long receivedCount() {
        return received.sum();
    }

    private void run() {
        boolean first = true;
        while (running.get()) {
            try (Connection conn = db.dataSource().getConnection()) {
                connection = conn;
                conn.setAutoCommit(true);
                try (Statement st = conn.createStatement()) {
                    st.execute("LISTEN \"" + channel(conn).replace("\"", "\"\"") + "\"");
                }
                if (!first) {
                    // changes made while the connection was down were not heard
                    invalidate.run();
                    credentialsRevoked.run();
                }
                first = false;
                PGConnection pg = conn.unwrap(PGConnection.class);
                while (running.get()) {
                    PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
                    if (notifications != null && notifications.length > 0) {
                        received.add(notifications.length);
                        boolean access = false;
                        boolean credentials = false;
                        for (PGNotification n : notifications) {
                            if (TOKEN_STATE.equals(n.getParameter())) {
                                credentials = true;
                            } else {
                                access = true;
                            }
                        }
                        if (access) {
                            invalidate.run();
                        }
                        if (credentials) {
                            credentialsRevoked.run();
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (running.get()) {
                    LOG.log(
                            Level.WARNING,
                            "listening for access changes failed; retrying in " + RETRY.toSeconds()
                                    + " s (the event feed still invalidates): " + e.getMessage());
                    first = false;
                    sleep();
                }
            } finally {
                connection = null;
            }
        }
    }

    private void sleep() {
        try {
            Thread.sleep(RETRY.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        }
    }

    @Override
    public void close() {
        running.set(false);
        thread.interrupt();
        Connection listening = connection;
        if (listening != null) {
            try {
                // ends the wait for a notification at once: the listener's read fails, and it sees it should stop
                listening.abort(Runnable::run);
            } catch (SQLException | RuntimeException e) {
                LOG.log(Level.FINE, "could not abort the listening connection; it ends with its wait", e);
            }
        }
        try {
            thread.join(Duration.ofSeconds(2).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
