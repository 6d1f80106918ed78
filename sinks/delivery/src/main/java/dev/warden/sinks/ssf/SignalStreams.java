package dev.warden.sinks.ssf;

import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import dev.warden.runtime.db.Sql;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Shared Signals tables: {@code ssf_streams} (the authorization header sealed with the cipher, keyed by the
 * stream's id), {@code ssf_excluded_subjects} and {@code ssf_outbox}, the Security Event Tokens a stream has not yet
 * had delivered (push) or acknowledged (poll), in order. Used by the REST surface (stream management, polling) and
 * by the sinks role (feeding, pushing).
 */
public final class SignalStreams {
    private static final String COLUMNS = "id, manager, owner_user, audience, delivery_method, endpoint_url, "
            + "authorization_header, events_requested, description, status, status_reason, created_at, updated_at, "
            + "verified_at";
    private static final String INSERT =
            "INSERT INTO ssf_streams (" + COLUMNS + ") " + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String UPDATE = "UPDATE ssf_streams SET endpoint_url = ?, authorization_header = ?, "
            + "events_requested = ?, description = ?, updated_at = ? WHERE id = ?";
    private static final String ENQUEUE = "INSERT INTO ssf_outbox (stream_id, jti, token, created_at) "
            + "VALUES (?, ?, ?, ?) ON CONFLICT (stream_id, jti) DO NOTHING";

    /** A Security Event Token waiting in a stream's outbox. */
    public record Pending(long seq, String jti, String token, Instant createdAt) {}

    /** What a poll returns: the oldest pending tokens, and whether more wait. */
    public record Page(List<Pending> tokens, boolean moreAvailable) {}

    private final Database db;
    private final SecretCipher cipher;

    public SignalStreams(Database db, SecretCipher cipher) {
        this.db = db;
        this.cipher = cipher;
    }

    /** Stores a new stream. */
    public void create(SignalStream stream) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, stream.id());
                ps.setString(2, stream.manager());
                Sql.setString(ps, 3, stream.ownerUser());
                ps.setString(4, stream.audience());
                ps.setString(5, stream.method().column());
                Sql.setString(ps, 6, stream.endpoint().map(URI::toString));
                Sql.setString(ps, 7, stream.authorizationHeader().map(h -> cipher.seal(stream.id(), h)));
                ps.setArray(
                        8, conn.createArrayOf("text", stream.eventsRequested().toArray()));
                Sql.setString(ps, 9, stream.description());
                ps.setString(10, stream.status().wireName());
                Sql.setString(ps, 11, stream.statusReason());
                ps.setTimestamp(12, Timestamp.from(stream.createdAt()));
                ps.setTimestamp(13, Timestamp.from(stream.updatedAt()));
                Sql.setInstant(ps, 14, stream.verifiedAt());
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** The stream {@code id}. */
    public Optional<SignalStream> find(String id) {
        return db.withConnection(conn -> {
            List<SignalStream> found = select(conn, "SELECT " + COLUMNS + " FROM ssf_streams WHERE id = ?", id);
            return found.stream().findFirst();
        });
    }

    /** The streams {@code manager} manages, oldest first; every stream when empty (the administrator). */
    public List<SignalStream> managedBy(Optional<String> manager) {
        return db.withConnection(conn -> manager.isPresent()
                ? select(
                        conn,
                        "SELECT " + COLUMNS + " FROM ssf_streams WHERE manager = ? ORDER BY created_at, id",
                        manager.get())
                : select(conn, "SELECT " + COLUMNS + " FROM ssf_streams ORDER BY created_at, id"));
    }

    /** How many streams {@code manager} manages. */
    public int countManagedBy(String manager) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM ssf_streams WHERE manager = ?")) {
                ps.setString(1, manager);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
    }

    /** Stores what a receiver may change of {@code stream}. */
    public void update(SignalStream stream) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(UPDATE)) {
                Sql.setString(ps, 1, stream.endpoint().map(URI::toString));
                Sql.setString(ps, 2, stream.authorizationHeader().map(h -> cipher.seal(stream.id(), h)));
                ps.setArray(
                        3, conn.createArrayOf("text", stream.eventsRequested().toArray()));
                Sql.setString(ps, 4, stream.description());
                ps.setTimestamp(5, Timestamp.from(stream.updatedAt()));
                ps.setString(6, stream.id());
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** Deletes the stream, its subjects and its undelivered tokens. */
    public void delete(String id) {
        update("DELETE FROM ssf_streams WHERE id = ?", id);
    }

    /**
     * Sets the stream's status. Disabling it drops what it holds (SSF: a disabled stream's events are not kept).
     */
    public void status(String id, SignalStream.Status status, Optional<String> reason, Instant at) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE ssf_streams SET status = ?, status_reason = ?, updated_at = ? WHERE id = ?")) {
                ps.setString(1, status.wireName());
                Sql.setString(ps, 2, reason);
                ps.setTimestamp(3, Timestamp.from(at));
                ps.setString(4, id);
                ps.executeUpdate();
            }
            if (status == SignalStream.Status.DISABLED) {
                try (PreparedStatement ps = conn.prepareStatement("DELETE FROM ssf_outbox WHERE stream_id = ?")) {
                    ps.setString(1, id);
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    /** In the caller's transaction: deletes the streams the revoked agents {@code agentIds} managed. */
    static void deleteManagedByAgents(Connection conn, List<String> agentIds) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("DELETE FROM ssf_streams WHERE manager = ANY (?)")) {
            ps.setArray(
                    1,
                    conn.createArrayOf(
                            "text", agentIds.stream().map(id -> "agent:" + id).toArray()));
            ps.executeUpdate();
        }
    }

    /** Removes {@code subject} from the stream: its events are no longer sent. */
    public void exclude(String id, String subject) {
        update(
                "INSERT INTO ssf_excluded_subjects (stream_id, subject) VALUES (?, ?) ON CONFLICT DO NOTHING",
                id,
                subject);
    }

    /** Adds {@code subject} back to the stream. */
    public void include(String id, String subject) {
        update("DELETE FROM ssf_excluded_subjects WHERE stream_id = ? AND subject = ?", id, subject);
    }

    /**
     * Records a verification request at {@code at} unless the previous one was after {@code notAfter}.
     *
     * @return false when the stream was verified too recently
     */
    public boolean verifying(String id, Instant at, Instant notAfter) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("UPDATE ssf_streams SET verified_at = ? "
                    + "WHERE id = ? AND (verified_at IS NULL OR verified_at <= ?)")) {
                ps.setTimestamp(1, Timestamp.from(at));
                ps.setString(2, id);
                ps.setTimestamp(3, Timestamp.from(notAfter));
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Queues a token for the stream (its own transaction). */
    public void enqueue(String id, String jti, String token, Instant at) {
        db.withConnection(conn -> {
            enqueue(conn, id, jti, token, at);
            return null;
        });
    }

    /** Queues a token for the stream in the caller's transaction; a {@code jti} already queued is ignored. */
    static int enqueue(Connection conn, String id, String jti, String token, Instant at) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(ENQUEUE)) {
            ps.setString(1, id);
            ps.setString(2, jti);
            ps.setString(3, token);
            ps.setTimestamp(4, Timestamp.from(at));
            return ps.executeUpdate();
        }
    }

    /** The oldest {@code max} pending tokens of the stream. */
    public Page pending(String id, int max) {
        return db.withConnection(conn -> pending(conn, id, max));
    }

    static Page pending(Connection conn, String id, int max) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(
                "SELECT seq, jti, token, created_at FROM ssf_outbox " + "WHERE stream_id = ? ORDER BY seq LIMIT ?")) {
            ps.setString(1, id);
            ps.setInt(2, max + 1);
            try (ResultSet rs = ps.executeQuery()) {
                List<Pending> tokens = new ArrayList<>();
                while (rs.next()) {
                    tokens.add(new Pending(
                            rs.getLong("seq"),
                            rs.getString("jti"),
                            rs.getString("token"),
                            Sql.requiredInstant(rs, "created_at")));
                }
                boolean more = tokens.size() > max;
                return new Page(more ? tokens.subList(0, max) : tokens, more);
            }
        }
    }

    /** Removes the stream's tokens with these {@code jti}s (acknowledged, or reported as errors). */
    public int acknowledge(String id, Set<String> jtis) {
        if (jtis.isEmpty()) {
            return 0;
        }
        return db.withConnection(conn -> {
            try (PreparedStatement ps =
                    conn.prepareStatement("DELETE FROM ssf_outbox WHERE stream_id = ? AND jti = ANY (?)")) {
                ps.setString(1, id);
                ps.setArray(2, conn.createArrayOf("text", jtis.toArray()));
                return ps.executeUpdate();
            }
        });
    }

    /** Removes one delivered token. */
    static void delivered(Connection conn, String id, long seq) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("DELETE FROM ssf_outbox WHERE stream_id = ? AND seq = ?")) {
            ps.setString(1, id);
            ps.setLong(2, seq);
            ps.executeUpdate();
        }
    }

    /** How many tokens the streams hold, undelivered or unacknowledged, in all. */
    public long pendingTokens() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM ssf_outbox");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    /** Drops tokens queued before {@code before} (older than the retention), whatever their stream. */
    public int expire(Instant before) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM ssf_outbox WHERE created_at < ?")) {
                ps.setTimestamp(1, Timestamp.from(before));
                return ps.executeUpdate();
            }
        });
    }

    /** The streams that may take events (not disabled), with the subjects each excludes. */
    static List<Feedable> feedable(Connection conn) throws SQLException {
        Map<String, Set<String>> excluded = new HashMap<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT stream_id, subject FROM ssf_excluded_subjects");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                excluded.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getString(2));
            }
        }
        List<Feedable> streams = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(
                        "SELECT id, owner_user, audience, events_requested, created_at FROM ssf_streams "
                                + "WHERE status <> 'disabled'");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String id = rs.getString("id");
                streams.add(new Feedable(
                        id,
                        Sql.string(rs, "owner_user"),
                        rs.getString("audience"),
                        Set.copyOf(Sql.strings(rs, "events_requested")),
                        Sql.requiredInstant(rs, "created_at"),
                        excluded.getOrDefault(id, Set.of())));
            }
        }
        return streams;
    }

    /** The push streams that are enabled and hold tokens. */
    List<SignalStream> pushable() {
        return db.withConnection(conn -> select(
                conn,
                "SELECT " + COLUMNS + " FROM ssf_streams s WHERE delivery_method = 'push' AND status = 'enabled' "
                        + "AND EXISTS (SELECT 1 FROM ssf_outbox o WHERE o.stream_id = s.id)"));
    }

    /** Records why a push to the stream failed ({@code at}). */
    void recordError(String id, String error, Instant at) {
        db.withConnection(conn -> {
            try (PreparedStatement ps =
                    conn.prepareStatement("UPDATE ssf_streams SET last_error = ?, last_error_at = ? WHERE id = ?")) {
                ps.setString(1, error.length() > 500 ? error.substring(0, 500) : error);
                ps.setTimestamp(2, Timestamp.from(at));
                ps.setString(3, id);
                ps.executeUpdate();
            }
            return null;
        });
    }

    /** A stream as the feeder sees it. */
    record Feedable(
            String id,
            Optional<String> ownerUser,
            String audience,
            Set<String> eventsRequested,
            Instant createdAt,
            Set<String> excludedSubjects) {
        /** Whether {@code signal} goes to this stream. */
        boolean accepts(Signal signal) {
            return eventsRequested.contains(signal.type())
                    && !signal.at().isBefore(createdAt)
                    && (ownerUser.isEmpty() || ownerUser.equals(signal.ownerUser()))
                    && !excludedSubjects.contains(signal.subject().id());
        }
    }

    private void update(String sql, String... values) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                for (int i = 0; i < values.length; i++) {
                    ps.setString(i + 1, values[i]);
                }
                ps.executeUpdate();
            }
            return null;
        });
    }

    private List<SignalStream> select(Connection conn, String sql, String... values) throws SQLException {
        return Sql.rows(conn, sql, this::stream, values);
    }

    private SignalStream stream(ResultSet rs) throws SQLException {
        String id = rs.getString("id");
        return new SignalStream(
                id,
                rs.getString("manager"),
                Sql.string(rs, "owner_user"),
                rs.getString("audience"),
                SignalStream.Method.valueOf(rs.getString("delivery_method").toUpperCase(java.util.Locale.ROOT)),
                Sql.string(rs, "endpoint_url").map(URI::create),
                Sql.string(rs, "authorization_header").map(h -> cipher.open(id, h)),
                Sql.strings(rs, "events_requested"),
                Sql.string(rs, "description"),
                SignalStream.Status.of(rs.getString("status")).orElseThrow(),
                Sql.string(rs, "status_reason"),
                Sql.requiredInstant(rs, "created_at"),
                Sql.requiredInstant(rs, "updated_at"),
                Sql.instant(rs, "verified_at"));
    }
}
