package dev.warden.api.approvals;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.ApprovalRule;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.WireEnum;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The approval requests, on PostgreSQL table {@code approvals} (V31). Thread-safe. */
public final class JdbcApprovalRepository {
    private static final String COLUMNS =
            "id, agent_id, owner_id, action, resource, arguments_hash, arguments, status, "
                    + "approvers, approver_scope, delegation_ids, valid_for_seconds, requested_at, expires_at, decided_by, "
                    + "decided_at, note, granted_until, used_at";
    private static final String KEY = "agent_id = ? AND action = ? AND resource = ? AND arguments_hash = ?";
    static final String FIND = "SELECT " + COLUMNS + " FROM approvals WHERE id = ?";
    static final String GRANTED = "SELECT id, valid_for_seconds FROM approvals WHERE " + KEY
            + " AND status = 'approved' AND granted_until > ? AND delegation_ids = ? ORDER BY decided_at, id LIMIT 1"
            + " FOR UPDATE";
    static final String USE = "UPDATE approvals SET status = 'used', used_at = ? WHERE id = ? AND status = 'approved'";
    static final String RESTORE =
            "UPDATE approvals SET status = 'approved', used_at = NULL WHERE id = ? AND status = 'used'";
    static final String EXPIRE_PENDING =
            "UPDATE approvals SET status = 'expired' WHERE " + KEY + " AND status = 'pending' AND expires_at <= ?";
    static final String INSERT = "INSERT INTO approvals (id, agent_id, owner_id, action, resource, arguments_hash, "
            + "arguments, status, approvers, approver_scope, delegation_ids, valid_for_seconds, requested_at, expires_at) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?) "
            + "ON CONFLICT (agent_id, action, resource, arguments_hash) WHERE status = 'pending' DO NOTHING RETURNING id";
    static final String PENDING = "SELECT id FROM approvals WHERE " + KEY + " AND status = 'pending'";
    /**
     * Brings a live request's status up to date: cancelled when its agent or a delegation it came through is revoked,
     * expired when its time is up.
     */
    static final String SETTLE = "UPDATE approvals a SET status = CASE"
            + " WHEN EXISTS (SELECT 1 FROM agents g WHERE g.id = a.agent_id AND g.status = 'revoked')"
            + "   OR EXISTS (SELECT 1 FROM delegations d WHERE d.id = ANY(a.delegation_ids) AND d.revoked_at IS NOT NULL)"
            + "   THEN 'cancelled'"
            + " WHEN a.status = 'pending' AND a.expires_at <= ? THEN 'expired'"
            + " WHEN a.status = 'approved' AND a.granted_until <= ? THEN 'expired'"
            + " ELSE a.status END"
            + " WHERE a.status IN ('pending', 'approved') AND ";

    static final String DECIDE = "UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, note = ?, "
            + "granted_until = ? WHERE id = ? AND status = 'pending' AND expires_at > ?";
    static final String CANCEL_FOR_AGENT =
            "UPDATE approvals SET status = 'cancelled' WHERE agent_id = ? AND status IN ('pending', 'approved')";
    static final String LIST =
            "SELECT " + COLUMNS + " FROM approvals WHERE (? OR approver_scope = ANY(?) OR agent_id = ?"
                    + " OR owner_id = ?)"
                    + " AND (?::text IS NULL OR status = ?) ORDER BY requested_at DESC, id DESC LIMIT ?";

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private final Database db;

    public JdbcApprovalRepository(Database db) {
        this.db = db;
    }

    /** What a call's key and chain are: the agent, action, resource, arguments hash, and delegations. */
    public record Key(String agentId, String action, String resource, String argumentsHash, List<String> delegations) {
        public Key {
            delegations = List.copyOf(delegations);
        }
    }

    /** An approval that allows the call: its id, and whether it was for once (and is now used). */
    public record Granted(String id, boolean once) {}

    /**
     * The approval that allows a call with {@code key} at {@code now}, if there is one; an approval for once is
     * marked used in the same transaction, so two calls never share it.
     */
    public Optional<Granted> useGranted(Key key, Instant now) {
        return db.inTransaction(conn -> {
            String id;
            boolean once;
            try (PreparedStatement ps = conn.prepareStatement(GRANTED)) {
                int i = setKey(ps, 1, key);
                ps.setTimestamp(i++, Timestamp.from(now));
                ps.setArray(i, texts(conn, key.delegations()));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<Granted>empty();
                    }
                    id = rs.getString(1);
                    rs.getLong(2);
                    once = rs.wasNull();
                }
            }
            if (once) {
                try (PreparedStatement ps = conn.prepareStatement(USE)) {
                    ps.setTimestamp(1, Timestamp.from(now));
                    ps.setString(2, id);
                    ps.executeUpdate();
                }
            }
            return Optional.of(new Granted(id, once));
        });
    }

    /** Puts back an approval for once that was used by a call then refused for another reason (its budget). */
    public void restore(String id) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(RESTORE)) {
                ps.setString(1, id);
                return ps.executeUpdate();
            }
        });
    }

    /** The pending request for a call: the one there is, or a new one (with its event); and whether it is new. */
    public record Requested(String id, boolean created) {}

    /**
     * The pending request for {@code request}'s key, created (and announced by {@code event} and to {@code notifier},
     * in the same transaction) when there is none.
     */
    public Requested request(Approval request, StreamEvent.Draft event, ApprovalService.Notifier notifier) {
        Requested requested = db.inTransaction(conn -> {
            Key key = new Key(
                    request.agentId(),
                    request.action(),
                    request.resource(),
                    request.argumentsHash(),
                    request.delegations());
            try (PreparedStatement ps = conn.prepareStatement(EXPIRE_PENDING)) {
                int i = setKey(ps, 1, key);
                ps.setTimestamp(i, Timestamp.from(request.requestedAt()));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, request.id());
                ps.setString(2, request.agentId());
                ps.setString(3, request.ownerId());
                ps.setString(4, request.action());
                ps.setString(5, request.resource());
                ps.setString(6, request.argumentsHash());
                Sql.setJson(ps, 7, Json.mapper().writeValueAsString(request.arguments()));
                ps.setString(8, request.approvers().wireName());
                ps.setString(9, request.approverScope());
                ps.setArray(10, texts(conn, request.delegations()));
                if (request.validFor().isPresent()) {
                    ps.setLong(11, request.validFor().get().toSeconds());
                } else {
                    ps.setNull(11, java.sql.Types.BIGINT);
                }
                ps.setTimestamp(12, Timestamp.from(request.requestedAt()));
                ps.setTimestamp(13, Timestamp.from(request.expiresAt()));
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        EventOutbox.append(conn, event);
                        notifier.requested(conn, request);
                        return new Requested(rs.getString(1), true);
                    }
                }
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
            try (PreparedStatement ps = conn.prepareStatement(PENDING)) {
                setKey(ps, 1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return new Requested(rs.getString(1), false);
                    }
                }
            }
            // Decided between the insert and the read: a later call asks again.
            throw new IllegalStateException("approval request for " + key + " changed while it was read");
        });
        if (requested.created()) {
            notifier.committed();
        }
        return requested;
    }

    /** The request {@code id}, its status brought up to date at {@code now}. */
    public Optional<Approval> find(String id, Instant now) {
        return db.inTransaction(conn -> {
            settle(conn, "a.id = ?", now, ps -> ps.setString(3, id));
            try (PreparedStatement ps = conn.prepareStatement(FIND)) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(row(rs)) : Optional.<Approval>empty();
                }
            }
        });
    }

    /**
     * The newest requests, up to {@code limit}: all of them ({@code all}), else those decided in one of
     * {@code scopes}, about {@code agentId} or about an agent of {@code ownerId}; only those with {@code status} when
     * given.
     */
    public List<Approval> list(
            boolean all,
            List<String> scopes,
            String agentId,
            String ownerId,
            Optional<Approval.Status> status,
            int limit,
            Instant now) {
        return db.inTransaction(conn -> {
            settle(conn, "(? OR a.approver_scope = ANY(?) OR a.agent_id = ? OR a.owner_id = ?)", now, ps -> {
                ps.setBoolean(3, all);
                ps.setArray(4, texts(conn, scopes));
                ps.setString(5, agentId);
                ps.setString(6, ownerId);
            });
            List<Approval> found = new ArrayList<>();
            try (PreparedStatement ps = conn.prepareStatement(LIST)) {
                ps.setBoolean(1, all);
                ps.setArray(2, texts(conn, scopes));
                ps.setString(3, agentId);
                ps.setString(4, ownerId);
                Sql.setString(ps, 5, status.map(Approval.Status::wireName));
                Sql.setString(ps, 6, status.map(Approval.Status::wireName));
                ps.setInt(7, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(row(rs));
                    }
                }
            }
            return found;
        });
    }

    /**
     * Decides the pending request {@code id}: approved until {@code grantedUntil}, or denied; with its event and
     * audit entry. False when it is no longer pending (decided, expired, cancelled).
     */
    public boolean decide(
            String id,
            boolean approve,
            String decidedBy,
            Optional<String> note,
            Instant grantedUntil,
            Instant now,
            StreamEvent.Draft event,
            AuditEntry audit) {
        return db.inTransaction(conn -> {
            settle(conn, "a.id = ?", now, ps -> ps.setString(3, id));
            try (PreparedStatement ps = conn.prepareStatement(DECIDE)) {
                ps.setString(1, approve ? Approval.Status.APPROVED.wireName() : Approval.Status.DENIED.wireName());
                ps.setString(2, decidedBy);
                ps.setTimestamp(3, Timestamp.from(now));
                Sql.setString(ps, 4, note);
                Sql.setInstant(ps, 5, approve ? Optional.of(grantedUntil) : Optional.empty());
                ps.setString(6, id);
                ps.setTimestamp(7, Timestamp.from(now));
                if (ps.executeUpdate() != 1) {
                    return false;
                }
            }
            EventOutbox.append(conn, event);
            EventOutbox.appendAudit(conn, audit);
            return true;
        });
    }

    /** Ends every live request about {@code agentId} (the agent was revoked). */
    public int cancelForAgent(String agentId) {
        return db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(CANCEL_FOR_AGENT)) {
                ps.setString(1, agentId);
                return ps.executeUpdate();
            }
        });
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private static void settle(Connection conn, String where, Instant now, Binder binder) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(SETTLE + where)) {
            ps.setTimestamp(1, Timestamp.from(now));
            ps.setTimestamp(2, Timestamp.from(now));
            binder.bind(ps);
            ps.executeUpdate();
        }
    }

    private static int setKey(PreparedStatement ps, int from, Key key) throws SQLException {
        ps.setString(from, key.agentId());
        ps.setString(from + 1, key.action());
        ps.setString(from + 2, key.resource());
        ps.setString(from + 3, key.argumentsHash());
        return from + 4;
    }

    private static Array texts(Connection conn, List<String> values) throws SQLException {
        return conn.createArrayOf("text", values.toArray(String[]::new));
    }

    private static Approval row(ResultSet rs) throws SQLException {
        long seconds = rs.getLong("valid_for_seconds");
        Optional<Duration> validFor = rs.wasNull() ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
        Map<String, Object> arguments;
        try {
            arguments = Json.mapper().readValue(rs.getString("arguments"), MAP);
        } catch (JsonProcessingException e) {
            throw new SQLException("stored arguments are not JSON", e);
        }
        return new Approval(
                rs.getString("id"),
                rs.getString("agent_id"),
                rs.getString("owner_id"),
                rs.getString("action"),
                rs.getString("resource"),
                rs.getString("arguments_hash"),
                arguments,
                WireEnum.parse(Approval.Status.class, rs.getString("status")).orElseThrow(),
                WireEnum.parse(ApprovalRule.Approvers.class, rs.getString("approvers"))
                        .orElseThrow(),
                rs.getString("approver_scope"),
                Arrays.asList((String[]) rs.getArray("delegation_ids").getArray()),
                validFor,
                Sql.requiredInstant(rs, "requested_at"),
                Sql.requiredInstant(rs, "expires_at"),
                Sql.string(rs, "decided_by"),
                Sql.instant(rs, "decided_at"),
                Sql.string(rs, "note"),
                Sql.instant(rs, "granted_until"),
                Sql.instant(rs, "used_at"));
    }
}
