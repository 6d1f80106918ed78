package dev.warden.runtime.consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The {@code sink_controls} table: what the administrator asked of each external audit sink. The API writes it
 * ({@link #pause}, {@link #resume}, {@link #replay}); each sink's worker reads it through {@link #of}, at most once a
 * {@link #REFRESH}, so that a request reaches the worker on any instance within about a second.
 */
public final class SinkControls {
    private static final Logger LOG = Logger.getLogger(SinkControls.class.getName());
    /** How long a worker keeps a read. */
    public static final Duration REFRESH = Duration.ofSeconds(1);

    static final String READ = "SELECT paused, replay_generation, replay_from FROM sink_controls WHERE sink = ?";
    static final String PAUSE = "INSERT INTO sink_controls (sink, paused, updated_at, updated_by) VALUES (?, ?, ?, ?) "
            + "ON CONFLICT (sink) DO UPDATE SET paused = EXCLUDED.paused, updated_at = EXCLUDED.updated_at, "
            + "updated_by = EXCLUDED.updated_by";
    static final String REPLAY = "INSERT INTO sink_controls (sink, replay_generation, replay_from, updated_at, "
            + "updated_by) VALUES (?, 1, ?, ?, ?) ON CONFLICT (sink) DO UPDATE SET "
            + "replay_generation = sink_controls.replay_generation + 1, replay_from = EXCLUDED.replay_from, "
            + "updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by";

    private SinkControls() {}

    /** The control of {@code sink} as its worker reads it: cached for {@link #REFRESH}, the last state kept on error. */
    public static SinkControl of(DataSource dataSource, String sink) {
        return new SinkControl() {
            private State last = State.RUNNING;
            private long readAtNanos;
            private boolean read;

            @Override
            public synchronized State state() {
                long now = System.nanoTime();
                if (read && now - readAtNanos < REFRESH.toNanos()) {
                    return last;
                }
                readAtNanos = now;
                try {
                    last = read(dataSource, sink);
                    read = true;
                } catch (RuntimeException e) {
                    LOG.warning("sink " + sink + ": cannot read its control, keeping the last one: " + e.getMessage());
                }
                return last;
            }
        };
    }

    /** The control of {@code sink} now (running when none was ever asked). */
    public static SinkControl.State read(DataSource dataSource, String sink) {
        try (Connection conn = dataSource.getConnection();
                PreparedStatement ps = conn.prepareStatement(READ)) {
            ps.setString(1, sink);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return SinkControl.State.RUNNING;
                }
                Timestamp from = rs.getTimestamp(3);
                return new SinkControl.State(
                        rs.getBoolean(1),
                        rs.getLong(2),
                        Optional.ofNullable(from).map(Timestamp::toInstant));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the control of " + sink + ": " + e.getMessage(), e);
        }
    }

    /** Pauses ({@code true}) or resumes {@code sink}, as {@code by} asked at {@code at}. */
    public static void pause(DataSource dataSource, String sink, boolean paused, String by, Instant at) {
        update(dataSource, PAUSE, ps -> {
            ps.setString(1, sink);
            ps.setBoolean(2, paused);
            ps.setTimestamp(3, Timestamp.from(at));
            ps.setString(4, by);
        });
    }

    /** Asks {@code sink} to re-send every entry from {@code from} on (a new replay generation). */
    public static void replay(DataSource dataSource, String sink, Instant from, String by, Instant at) {
        update(dataSource, REPLAY, ps -> {
            ps.setString(1, sink);
            ps.setTimestamp(2, Timestamp.from(from));
            ps.setTimestamp(3, Timestamp.from(at));
            ps.setString(4, by);
        });
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private static void update(DataSource dataSource, String sql, Binder binder) {
        try (Connection conn = dataSource.getConnection();
                PreparedStatement ps = conn.prepareStatement(sql)) {
            binder.bind(ps);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot store a sink control: " + e.getMessage(), e);
        }
    }
}
