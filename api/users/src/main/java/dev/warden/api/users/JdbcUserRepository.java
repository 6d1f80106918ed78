package dev.warden.api.users;

import dev.warden.api.auth.CredentialRevocations;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.users.audit.AccountAudit;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.DatabaseException;
import dev.warden.runtime.db.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.postgresql.util.PSQLException;

/** {@link UserRepository} on Postgres tables {@code users} and {@code user_sessions}, events via the outbox. */
public final class JdbcUserRepository implements UserRepository {
    private static final String USER_COLUMNS = "id, username, email, display_name, created_at, updated_at";

    static final String INSERT_USER = "INSERT INTO users (id, username, username_key, email, email_key, display_name, "
            + "password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String FIND_ACCOUNT = "SELECT " + USER_COLUMNS + ", password_hash, failed_attempts, locked_until "
            + "FROM users WHERE username_key = ?";
    static final String FIND_USER = "SELECT " + USER_COLUMNS + " FROM users WHERE id = ?";
    static final String SIGNED_IN = "UPDATE users SET failed_attempts = 0, last_failed_at = NULL, locked_until = NULL, "
            + "password_hash = COALESCE(?, password_hash) WHERE id = ?";
    /** Counts a failure (restarting the count when the previous one is older than the window), locks at max. */
    static final String SIGN_IN_FAILED = "UPDATE users SET "
            + "failed_attempts = CASE WHEN (CASE WHEN last_failed_at IS NULL OR last_failed_at <= ? THEN 1 "
            + "  ELSE failed_attempts + 1 END) >= ? THEN 0 "
            + "  ELSE (CASE WHEN last_failed_at IS NULL OR last_failed_at <= ? THEN 1 ELSE failed_attempts + 1 END) END, "
            + "locked_until = CASE WHEN (CASE WHEN last_failed_at IS NULL OR last_failed_at <= ? THEN 1 "
            + "  ELSE failed_attempts + 1 END) >= ? THEN ? ELSE locked_until END, "
            + "last_failed_at = ? WHERE id = ? RETURNING failed_attempts, locked_until";

    static final String CHANGE_USERNAME =
            "UPDATE users SET username = ?, username_key = ?, updated_at = ? WHERE id = ? " + "RETURNING "
                    + USER_COLUMNS;
    static final String INSERT_SESSION =
            "INSERT INTO user_sessions (id, user_id, token_hash, created_at, refreshed_at, "
                    + "expires_at, absolute_expires_at, amr, ip, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String SESSION_COLUMNS =
            "id, user_id, created_at, refreshed_at, expires_at, " + "absolute_expires_at, revoked_at, amr";
    static final String FIND_SESSION = "SELECT " + SESSION_COLUMNS + " FROM user_sessions WHERE token_hash = ?";
    static final String FIND_SESSION_BY_ID = "SELECT " + SESSION_COLUMNS + " FROM user_sessions WHERE id = ?";
    /** Only moves expiry forward, so two instances refreshing at once cannot shorten a session. */
    static final String REFRESH_SESSION = "UPDATE user_sessions SET refreshed_at = ?, expires_at = ? "
            + "WHERE id = ? AND revoked_at IS NULL AND expires_at < ?";

    static final String REVOKE_SESSION = "UPDATE user_sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL";

    private final Database db;
    private final CredentialRevocations revocations;

    /**
     * @param revocations moved once a transaction that ended sessions commits: an OAuth grant made in an ended
     *     session stops working with it, and the caches of token states must know (D187)
     */
    public JdbcUserRepository(Database db, CredentialRevocations revocations) {
        this.db = db;
        this.revocations = revocations;
    }

    @Override
    public void create(NewUser user, Session session, byte[] tokenHash, Origin origin, List<StreamEvent.Draft> events) {
        try {
            db.inTransaction(conn -> {
                insert(conn, user, session, tokenHash, origin, events);
                return null;
            });
        } catch (DatabaseException e) {
            throw taken(e).orElseThrow(() -> e);
        }
    }

    /**
     * Within the caller's transaction {@code conn}: stores a new user, their first session and its events. A unique
     * violation (username, e-mail) surfaces as the {@link DatabaseException} that {@link #taken} reads.
     */
    static void insert(
            Connection conn,
            NewUser user,
            Session session,
            byte[] tokenHash,
            Origin origin,
            List<StreamEvent.Draft> events)
            throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(INSERT_USER)) {
            User u = user.user();
            ps.setString(1, u.id().value());
            ps.setString(2, user.username().display());
            ps.setString(3, user.username().key());
            Sql.setString(ps, 4, u.email());
            Sql.setString(ps, 5, user.emailKey());
            Sql.setString(ps, 6, u.displayName());
            ps.setString(7, user.passwordHash());
            ps.setTimestamp(8, Timestamp.from(u.createdAt()));
            ps.setTimestamp(9, Timestamp.from(u.updatedAt()));
            ps.executeUpdate();
        }
        insertSession(conn, session, tokenHash, origin);
        append(conn, events);
    }

    @Override
    public Optional<Account> findAccount(String usernameKey) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND_ACCOUNT)) {
                ps.setString(1, usernameKey);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new Account(
                            user(rs),
                            rs.getString("password_hash"),
                            rs.getInt("failed_attempts"),
                            Sql.instant(rs, "locked_until")));
                }
            }
        });
    }

    @Override
    public Optional<User> find(UserId id) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND_USER)) {
                ps.setString(1, id.value());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(user(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public void signedIn(
            UserId id,
            Optional<String> newPasswordHash,
            Session session,
            byte[] tokenHash,
            Origin origin,
            List<StreamEvent.Draft> events) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(SIGNED_IN)) {
                Sql.setString(ps, 1, newPasswordHash);
                ps.setString(2, id.value());
                ps.executeUpdate();
            }
            insertSession(conn, session, tokenHash, origin);
            append(conn, events);
            return null;
        });
    }

    @Override
    public void signInFailed(
            Optional<UserId> countAgainst, Instant now, UsersConfig.Lockout lockout, List<StreamEvent.Draft> events) {
        db.inTransaction(conn -> {
            if (countAgainst.isPresent() && lockout.enabled()) {
                Timestamp windowStart = Timestamp.from(now.minus(lockout.window()));
                try (PreparedStatement ps = conn.prepareStatement(SIGN_IN_FAILED)) {
                    ps.setTimestamp(1, windowStart);
                    ps.setInt(2, lockout.maxFailures());
                    ps.setTimestamp(3, windowStart);
                    ps.setTimestamp(4, windowStart);
                    ps.setInt(5, lockout.maxFailures());
                    ps.setTimestamp(6, Timestamp.from(now.plus(lockout.duration())));
                    ps.setTimestamp(7, Timestamp.from(now));
                    ps.setString(8, countAgainst.get().value());
                    try (ResultSet rs = ps.executeQuery()) {
                        // Only the failure that locks the account zeroes the count and sets the lock together.
                        if (rs.next() && rs.getInt(1) == 0 && rs.getTimestamp(2) != null) {
                            append(
                                    conn,
                                    List.of(AuthEvents.locked(
                                            countAgainst.get(),
                                            rs.getTimestamp(2).toInstant(),
                                            lockoutIp(events),
                                            now)));
                        }
                    }
                }
            }
            append(conn, events);
            return null;
        });
    }

    /** The address the failed attempt came from, as its {@code auth.failed} event has it. */
    private static String lockoutIp(List<StreamEvent.Draft> events) {
        return events.stream()
                .map(e -> e.data().get("ip"))
                .filter(String.class::isInstance)
                .map(String.class::cast)
                .findFirst()
                .orElse("");
    }

    @Override
    public Optional<User> changeUsername(UserId id, Username username, Instant now) {
        try {
            return db.withConnection(conn -> {
                try (PreparedStatement ps = conn.prepareStatement(CHANGE_USERNAME)) {
                    ps.setString(1, username.display());
                    ps.setString(2, username.key());
                    ps.setTimestamp(3, Timestamp.from(now));
                    ps.setString(4, id.value());
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? Optional.of(user(rs)) : Optional.empty();
                    }
                }
            });
        } catch (DatabaseException e) {
            throw taken(e).orElseThrow(() -> e);
        }
    }

    @Override
    public Optional<Session> findSession(byte[] tokenHash) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND_SESSION)) {
                ps.setBytes(1, tokenHash);
                return oneSession(ps);
            }
        });
    }

    @Override
    public Optional<Session> findSessionById(String id) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND_SESSION_BY_ID)) {
                ps.setString(1, id);
                return oneSession(ps);
            }
        });
    }

    private static Optional<Session> oneSession(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            return Optional.of(session(rs));
        }
    }

    private static Session session(ResultSet rs) throws SQLException {
        return new Session(
                rs.getString("id"),
                UserId.of(rs.getString("user_id")),
                Sql.requiredInstant(rs, "created_at"),
                Sql.requiredInstant(rs, "refreshed_at"),
                Sql.requiredInstant(rs, "expires_at"),
                Sql.requiredInstant(rs, "absolute_expires_at"),
                Sql.instant(rs, "revoked_at"),
                List.of((String[]) rs.getArray("amr").getArray()));
    }

    @Override
    public void refreshSession(Session refreshed) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(REFRESH_SESSION)) {
                ps.setTimestamp(1, Timestamp.from(refreshed.refreshedAt()));
                ps.setTimestamp(2, Timestamp.from(refreshed.expiresAt()));
                ps.setString(3, refreshed.id());
                ps.setTimestamp(4, Timestamp.from(refreshed.expiresAt()));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public boolean revokeSession(String id, Instant at, List<StreamEvent.Draft> events) {
        return sessionsEnded(db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(REVOKE_SESSION)) {
                ps.setTimestamp(1, Timestamp.from(at));
                ps.setString(2, id);
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            append(conn, events);
            return true;
        }));
    }

    /** Passes {@code result} on once the transaction that ended sessions committed. */
    private <T> T sessionsEnded(T result) {
        revocations.happened();
        return result;
    }

    private static void insertSession(Connection conn, Session session, byte[] tokenHash, Origin origin)
            throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(INSERT_SESSION)) {
            ps.setString(1, session.id());
            ps.setString(2, session.userId().value());
            ps.setBytes(3, tokenHash);
            ps.setTimestamp(4, Timestamp.from(session.createdAt()));
            ps.setTimestamp(5, Timestamp.from(session.refreshedAt()));
            ps.setTimestamp(6, Timestamp.from(session.expiresAt()));
            ps.setTimestamp(7, Timestamp.from(session.absoluteExpiresAt()));
            ps.setArray(8, conn.createArrayOf("text", session.amr().toArray()));
            ps.setString(9, origin.ip());
            Sql.setString(ps, 10, origin.userAgent());
            ps.executeUpdate();
        }
    }

    @Override
    public List<ListedSession> liveSessions(UserId user, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT " + SESSION_COLUMNS + ", ip, user_agent "
                    + "FROM user_sessions WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? "
                    + "AND absolute_expires_at > ? ORDER BY refreshed_at DESC, id LIMIT 1000")) {
                ps.setString(1, user.value());
                ps.setTimestamp(2, Timestamp.from(now));
                ps.setTimestamp(3, Timestamp.from(now));
                List<ListedSession> sessions = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        sessions.add(new ListedSession(
                                session(rs),
                                Optional.ofNullable(rs.getString("ip")),
                                Optional.ofNullable(rs.getString("user_agent"))));
                    }
                }
                return sessions;
            }
        });
    }

    @Override
    public boolean revokeSessionOf(UserId user, String id, Instant at, List<StreamEvent.Draft> events) {
        return sessionsEnded(db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(
                    "UPDATE user_sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL")) {
                ps.setTimestamp(1, Timestamp.from(at));
                ps.setString(2, id);
                ps.setString(3, user.value());
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            append(conn, events);
            return true;
        }));
    }

    @Override
    public List<String> revokeOtherSessions(UserId user, String keep, Instant at, String ip) {
        return sessionsEnded(db.inTransaction(conn -> revokeOthers(conn, user, keep, at, ip)));
    }

    private static List<String> revokeOthers(Connection conn, UserId user, String keep, Instant at, String ip)
            throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("UPDATE user_sessions SET revoked_at = ? "
                + "WHERE user_id = ? AND id <> ? AND revoked_at IS NULL RETURNING id")) {
            ps.setTimestamp(1, Timestamp.from(at));
            ps.setString(2, user.value());
            ps.setString(3, keep);
            List<String> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
            for (String id : ids) {
                append(conn, List.of(AuthEvents.signOut(user, id, ip, at)));
            }
            return ids;
        }
    }

    /**
     * Within the caller's transaction {@code conn}: stores {@code newHash} as {@code user}'s password, releases a
     * lockout and ends every session of theirs, each with its {@code auth.signout} event (from {@code ip}). For a
     * password reset, whose token is used up in the same transaction.
     *
     * @return the ids of the sessions ended
     */
    static List<String> resetPassword(Connection conn, UserId user, String newHash, Instant at, String ip)
            throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("UPDATE users SET password_hash = ?, updated_at = ?, "
                + "failed_attempts = 0, last_failed_at = NULL, locked_until = NULL WHERE id = ?")) {
            ps.setString(1, newHash);
            ps.setTimestamp(2, Timestamp.from(at));
            ps.setString(3, user.value());
            ps.executeUpdate();
        }
        return revokeOthers(conn, user, "", at, ip);
    }

    @Override
    public Optional<String> passwordHash(UserId user) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT password_hash FROM users WHERE id = ?")) {
                ps.setString(1, user.value());
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public List<String> changePassword(
            UserId user, String newHash, String keepSession, Instant at, AuditEntry audit, String ip) {
        return sessionsEnded(db.inTransaction(conn -> {
            try (PreparedStatement ps =
                    conn.prepareStatement("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?")) {
                ps.setString(1, newHash);
                ps.setTimestamp(2, Timestamp.from(at));
                ps.setString(3, user.value());
                ps.executeUpdate();
            }
            List<String> revoked = revokeOthers(conn, user, keepSession, at, ip);
            EventOutbox.appendAudit(conn, audit);
            return revoked;
        }));
    }

    /** Each event, and the audit entry of each sign-in event ({@link AccountAudit#ofAuthEvent}), in {@code conn}. */
    private static void append(Connection conn, List<StreamEvent.Draft> events) throws SQLException {
        for (StreamEvent.Draft event : events) {
            EventOutbox.append(conn, event);
            Optional<AuditEntry> entry = AccountAudit.ofAuthEvent(event);
            if (entry.isPresent()) {
                EventOutbox.appendAudit(conn, entry.get());
            }
        }
    }

    private static User user(ResultSet rs) throws SQLException {
        return new User(
                UserId.of(rs.getString("id")),
                rs.getString("username"),
                Sql.string(rs, "email"),
                Sql.string(rs, "display_name"),
                Sql.requiredInstant(rs, "created_at"),
                Sql.requiredInstant(rs, "updated_at"));
    }

    /** The field a unique violation is about, if {@code e} is one on a user column. */
    static Optional<AlreadyTakenException> taken(DatabaseException e) {
        if (!"23505".equals(e.sqlState())
                || !(e.getCause() instanceof PSQLException pg)
                || pg.getServerErrorMessage() == null) {
            return Optional.empty();
        }
        String constraint = String.valueOf(pg.getServerErrorMessage().getConstraint());
        return switch (constraint) {
            case "users_username_key_unique" -> Optional.of(new AlreadyTakenException("username"));
            case "users_email_key_unique" -> Optional.of(new AlreadyTakenException("email"));
            default -> Optional.empty();
        };
    }
}
