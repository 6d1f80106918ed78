package dev.warden.api.delegations;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.warden.api.agents.PermissionJson;
import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Keyset;
import dev.warden.runtime.db.Sql;
import java.io.UncheckedIOException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** {@link DelegationRepository} on Postgres table {@code delegations}. */
public final class JdbcDelegationRepository implements DelegationRepository {
    private static final String COLUMNS = "id, from_agent, to_agent, permissions, depth, max_depth, ancestors, "
            + "expires_at, created_at, revoked_at";
    static final String INSERT = "INSERT INTO delegations (id, from_agent, to_agent, permissions, depth, max_depth, "
            + "ancestors, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String FIND = "SELECT " + COLUMNS + " FROM delegations WHERE id = ?";
    static final String UNREVOKED_TO =
            "SELECT " + COLUMNS + " FROM delegations WHERE to_agent = ? AND revoked_at IS NULL";
    /** Delegations into an agent that granted at a moment: created by then, neither revoked nor expired yet. */
    static final String IN_FORCE_TO = "SELECT " + COLUMNS + " FROM delegations WHERE to_agent = ? AND created_at <= ? "
            + "AND (revoked_at IS NULL OR revoked_at > ?) AND (expires_at IS NULL OR expires_at > ?) "
            + "ORDER BY created_at, id LIMIT 1000";

    static final String LIST = "SELECT " + COLUMNS + " FROM delegations WHERE revoked_at IS NULL "
            + "AND (?::text IS NULL OR from_agent = ?) AND (?::text IS NULL OR to_agent = ?) "
            + "AND (?::timestamptz IS NULL OR (created_at, id) > (?, ?)) ORDER BY created_at, id LIMIT ?";
    static final String PAGE_OF_TENANT = "SELECT " + COLUMNS.replaceAll("(\\w+)", "d.$1") + " FROM delegations d "
            + "JOIN agents a ON a.id = d.from_agent WHERE a.tenant_id = ? AND d.revoked_at IS NULL "
            + "AND (?::timestamptz IS NULL OR (d.created_at, d.id) < (?, ?)) ORDER BY d.created_at DESC, d.id DESC LIMIT ?";
    static final String BETWEEN = "SELECT " + COLUMNS + " FROM delegations WHERE from_agent = ? AND to_agent = ? "
            + "ORDER BY created_at, id LIMIT 1000";
    /** The roots and all their descendants that are still live, locked for the revocation. */
    static final String CASCADE = "SELECT " + COLUMNS + " FROM delegations WHERE revoked_at IS NULL AND ("
            + "id = ANY(?) OR ancestors && ?) ORDER BY created_at, id FOR UPDATE";

    static final String ROOTS_FROM_AGENT = "SELECT id FROM delegations WHERE from_agent = ? AND revoked_at IS NULL";
    static final String REVOKE = "UPDATE delegations SET revoked_at = ?, revoked_reason = ? WHERE id = ANY(?)";

    private final Database db;

    public JdbcDelegationRepository(Database db) {
        this.db = db;
    }

    @Override
    public void create(Delegation d, List<StreamEvent.Draft> events) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, d.id().value());
                ps.setString(2, d.fromAgent().value());
                ps.setString(3, d.toAgent().value());
                Sql.setJson(ps, 4, PermissionJson.render(d.permissions()).toString());
                ps.setInt(5, d.depth());
                ps.setInt(6, d.maxDepth());
                ps.setArray(
                        7,
                        ids(
                                conn,
                                d.ancestors().stream().map(DelegationId::value).toList()));
                Sql.setInstant(ps, 8, d.expiresAt());
                ps.setTimestamp(9, Timestamp.from(d.createdAt()));
                ps.executeUpdate();
            }
            for (StreamEvent.Draft event : events) {
                EventOutbox.append(conn, event);
            }
            return null;
        });
    }

    @Override
    public Optional<Delegation> find(DelegationId id) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND)) {
                ps.setString(1, id.value());
                List<Delegation> found = readAll(ps);
                return found.isEmpty() ? Optional.empty() : Optional.of(found.getFirst());
            }
        });
    }

    @Override
    public List<Delegation> unrevokedTo(AgentId agent) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(UNREVOKED_TO)) {
                ps.setString(1, agent.value());
                return readAll(ps);
            }
        });
    }

    @Override
    public List<Delegation> inForceTo(AgentId agent, Instant at) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(IN_FORCE_TO)) {
                Timestamp moment = Timestamp.from(at);
                ps.setString(1, agent.value());
                ps.setTimestamp(2, moment);
                ps.setTimestamp(3, moment);
                ps.setTimestamp(4, moment);
                return readAll(ps);
            }
        });
    }

    @Override
    public List<Delegation> listUnrevoked(
            Optional<AgentId> from, Optional<AgentId> to, Optional<Keyset> after, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(LIST)) {
                String f = from.map(AgentId::value).orElse(null);
                String t = to.map(AgentId::value).orElse(null);
                ps.setString(1, f);
                ps.setString(2, f);
                ps.setString(3, t);
                ps.setString(4, t);
                ps.setInt(Keyset.bind(ps, 5, after), limit);
                return readAll(ps);
            }
        });
    }

    @Override
    public List<Delegation> between(AgentId from, AgentId to) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(BETWEEN)) {
                ps.setString(1, from.value());
                ps.setString(2, to.value());
                return readAll(ps);
            }
        });
    }

    @Override
    public List<Delegation> pageOfTenant(String tenant, Optional<Keyset> after, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(PAGE_OF_TENANT)) {
                ps.setString(1, tenant);
                ps.setInt(Keyset.bind(ps, 2, after), limit);
                return readAll(ps);
            }
        });
    }

    @Override
    public List<Delegation> revokeCascade(
            Scope scope, String reason, Instant at, Function<List<Delegation>, Records> records) {
        return db.inTransaction(conn -> {
            List<String> roots = roots(conn, scope);
            if (roots.isEmpty()) {
                return List.of();
            }
            List<Delegation> revoked;
            try (PreparedStatement ps = conn.prepareStatement(CASCADE)) {
                ps.setArray(1, ids(conn, roots));
                ps.setArray(2, ids(conn, roots));
                revoked = readAll(ps);
            }
            if (revoked.isEmpty()) {
                return List.of();
            }
            try (PreparedStatement ps = conn.prepareStatement(REVOKE)) {
                ps.setTimestamp(1, Timestamp.from(at));
                ps.setString(2, reason);
                ps.setArray(
                        3, ids(conn, revoked.stream().map(d -> d.id().value()).toList()));
                ps.executeUpdate();
            }
            List<Delegation> result = revoked.stream()
                    .map(d -> new Delegation(
                            d.id(),
                            d.fromAgent(),
                            d.toAgent(),
                            d.permissions(),
                            d.depth(),
                            d.maxDepth(),
                            d.ancestors(),
                            d.expiresAt(),
                            d.createdAt(),
                            Optional.of(at)))
                    .toList();
            Records written = records.apply(result);
            for (StreamEvent.Draft event : written.events()) {
                EventOutbox.append(conn, event);
            }
            for (AuditEntry entry : written.audit()) {
                EventOutbox.appendAudit(conn, entry);
            }
            return result;
        });
    }

    private static List<String> roots(Connection conn, Scope scope) throws SQLException {
        return switch (scope) {
            case Scope.One one -> List.of(one.id().value());
            case Scope.FromAgent from -> {
                List<String> ids = new ArrayList<>();
                try (PreparedStatement ps = conn.prepareStatement(ROOTS_FROM_AGENT)) {
                    ps.setString(1, from.agent().value());
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getString(1));
                        }
                    }
                }
                yield ids;
            }
        };
    }

    private static Array ids(Connection conn, List<String> ids) throws SQLException {
        return conn.createArrayOf("text", ids.toArray());
    }

    private static List<Delegation> readAll(PreparedStatement ps) throws SQLException {
        List<Delegation> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(read(rs));
            }
        }
        return out;
    }

    private static Delegation read(ResultSet rs) throws SQLException {
        try {
            String[] ancestors = (String[]) rs.getArray("ancestors").getArray();
            return new Delegation(
                    DelegationId.of(rs.getString("id")),
                    AgentId.of(rs.getString("from_agent")),
                    AgentId.of(rs.getString("to_agent")),
                    PermissionJson.fromStored(Json.mapper().readTree(rs.getString("permissions"))),
                    rs.getInt("depth"),
                    rs.getInt("max_depth"),
                    Arrays.stream(ancestors).map(DelegationId::of).toList(),
                    Sql.instant(rs, "expires_at"),
                    Sql.requiredInstant(rs, "created_at"),
                    Sql.instant(rs, "revoked_at"));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
