package dev.warden.api.agents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.warden.api.events.EventOutbox;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.StreamEvent;
import dev.warden.pipeline.contract.WireEnum;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Keyset;
import dev.warden.runtime.db.Sql;
import dev.warden.runtime.db.StoredRows;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@link AgentRepository} on Postgres table {@code agents}, with events through the {@link EventOutbox}. */
public final class JdbcAgentRepository implements AgentRepository {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};
    private static final String COLUMNS = "id, owner_id, tenant_id, name, type, status, permissions, expires_at, "
            + "metadata, created_at, updated_at, budget";

    static final String INSERT = "INSERT INTO agents (id, owner_id, tenant_id, name, type, status, token_hash, "
            + "permissions, expires_at, metadata, created_at, updated_at, budget) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    static final String FIND = "SELECT " + COLUMNS + " FROM agents WHERE id = ?";
    static final String FIND_FOR_UPDATE = FIND + " FOR UPDATE";
    static final String FIND_BY_TOKEN = "SELECT " + COLUMNS + " FROM agents WHERE token_hash = ?";
    static final String UPDATE = "UPDATE agents SET name = ?, status = ?, permissions = ?, expires_at = ?, "
            + "metadata = ?, updated_at = ?, budget = ?, token_hash = COALESCE(?, token_hash), "
            + "revoked_at = CASE WHEN ? = 'revoked' THEN COALESCE(revoked_at, ?) ELSE revoked_at END WHERE id = ?";
    /** Derived-status filter: expired = stored active/suspended with expires_at passed. */
    private static final String TYPE_AND_STATUS = "(?::text IS NULL OR type = ?) AND ("
            + "?::text IS NULL"
            + " OR (? = 'revoked' AND status = 'revoked')"
            + " OR (? = 'expired' AND status <> 'revoked' AND expires_at <= ?)"
            + " OR (? IN ('active', 'suspended') AND status = ? AND (expires_at IS NULL OR expires_at > ?)))";

    static final String LIST = "SELECT " + COLUMNS + " FROM agents WHERE (?::text IS NULL OR owner_id = ?) "
            + "AND (?::text IS NULL OR tenant_id = ?) AND " + TYPE_AND_STATUS
            + " AND (?::timestamptz IS NULL OR (created_at, id) > (?, ?)) ORDER BY created_at, id LIMIT ?";
    /** A tenant's agents, newest first, strictly after a position (keyset pagination). */
    static final String PAGE = "SELECT " + COLUMNS + " FROM agents WHERE tenant_id = ? AND " + TYPE_AND_STATUS
            + " AND (?::timestamptz IS NULL OR (created_at, id) < (?, ?)) ORDER BY created_at DESC, id DESC LIMIT ?";

    /** The unrevoked agents known by an AuthZEN subject (metadata {@code authzen.subject}), of one owner or all. */
    static final String BY_SUBJECT = "SELECT " + COLUMNS + " FROM agents WHERE metadata->>'authzen.subject' = ? "
            + "AND status <> 'revoked' AND (?::text IS NULL OR owner_id = ?) ORDER BY created_at, id LIMIT ?";

    static final String COUNT = "SELECT count(*), count(*) FILTER (WHERE status = 'active' AND "
            + "(expires_at IS NULL OR expires_at > ?)) FROM agents WHERE (?::text IS NULL OR owner_id = ?)";

    private final Database db;

    public JdbcAgentRepository(Database db) {
        this.db = db;
    }

    @Override
    public void create(Agent agent, byte[] tokenHash, List<StreamEvent.Draft> events) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, agent.id().value());
                ps.setString(2, agent.ownerId().value());
                Sql.setString(ps, 3, agent.tenantId().map(TenantId::value));
                ps.setString(4, agent.name());
                ps.setString(5, agent.type().wireName());
                ps.setString(6, agent.storedStatus().wireName());
                ps.setBytes(7, tokenHash);
                Sql.setJson(ps, 8, PermissionJson.render(agent.permissions()).toString());
                Sql.setInstant(ps, 9, agent.expiresAt());
                Sql.setJson(ps, 10, json(agent.metadata()));
                ps.setTimestamp(11, Timestamp.from(agent.createdAt()));
                ps.setTimestamp(12, Timestamp.from(agent.updatedAt()));
                Sql.setJsonOrNull(ps, 13, agent.budget().map(BudgetJson::stored));
                ps.executeUpdate();
            }
            appendAll(conn, events);
            return null;
        });
    }

    @Override
    public Optional<Agent> find(AgentId id) {
        return db.withConnection(conn -> queryOne(conn, FIND, id.value()));
    }

    @Override
    public Optional<Agent> findByTokenHash(byte[] tokenHash) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND_BY_TOKEN)) {
                ps.setBytes(1, tokenHash);
                return first(ps);
            }
        });
    }

    @Override
    public Counts count(Optional<UserId> owner, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(COUNT)) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, owner.map(UserId::value).orElse(null));
                ps.setString(3, owner.map(UserId::value).orElse(null));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new Counts(rs.getLong(1), rs.getLong(2));
                }
            }
        });
    }

    @Override
    public List<Agent> list(Filter filter, Optional<Keyset> after, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(LIST)) {
                String owner = filter.ownerId().map(UserId::value).orElse(null);
                String tenant = filter.tenantId().map(TenantId::value).orElse(null);
                ps.setString(1, owner);
                ps.setString(2, owner);
                ps.setString(3, tenant);
                ps.setString(4, tenant);
                int next = setTypeAndStatus(ps, 5, filter);
                ps.setInt(Keyset.bind(ps, next, after), limit);
                return readAll(ps);
            }
        });
    }

    @Override
    public List<Agent> findBySubject(Optional<UserId> owner, String subject, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(BY_SUBJECT)) {
                String ownerId = owner.map(UserId::value).orElse(null);
                ps.setString(1, subject);
                ps.setString(2, ownerId);
                ps.setString(3, ownerId);
                ps.setInt(4, limit);
                return readAll(ps);
            }
        });
    }

    @Override
    public List<Agent> page(Filter filter, Optional<Keyset> after, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(PAGE)) {
                ps.setString(1, filter.tenantId().orElseThrow().value());
                int next = setTypeAndStatus(ps, 2, filter);
                ps.setInt(Keyset.bind(ps, next, after), limit);
                return readAll(ps);
            }
        });
    }

    /** Binds {@link #TYPE_AND_STATUS} from parameter {@code first} on; answers the next parameter's index. */
    private static int setTypeAndStatus(PreparedStatement ps, int first, Filter filter) throws SQLException {
        String type = filter.type().map(AgentType::wireName).orElse(null);
        String status = filter.status().map(AgentStatus::wireName).orElse(null);
        Timestamp now = Timestamp.from(filter.now());
        ps.setString(first, type);
        ps.setString(first + 1, type);
        ps.setString(first + 2, status);
        ps.setString(first + 3, status);
        ps.setString(first + 4, status);
        ps.setTimestamp(first + 5, now);
        ps.setString(first + 6, status);
        ps.setString(first + 7, status);
        ps.setTimestamp(first + 8, now);
        return first + 9;
    }

    private static List<Agent> readAll(PreparedStatement ps) throws SQLException {
        List<Agent> agents = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                StoredRows.read("agents", "id", rs, JdbcAgentRepository::read).ifPresent(agents::add);
            }
        }
        return agents;
    }

    @Override
    public Optional<Agent> update(AgentId id, Change change) {
        return db.inTransaction(conn -> {
            Optional<Agent> current = queryOne(conn, FIND_FOR_UPDATE, id.value());
            if (current.isEmpty()) {
                return Optional.empty();
            }
            Outcome outcome = change.apply(current.get());
            if (outcome.events().isEmpty()
                    && outcome.agent().equals(current.get())
                    && outcome.newTokenHash().isEmpty()) {
                return current;
            }
            write(conn, outcome);
            appendAll(conn, outcome.events());
            for (AuditEntry entry : outcome.audit()) {
                EventOutbox.appendAudit(conn, entry);
            }
            return Optional.of(outcome.agent());
        });
    }

    private static void write(Connection conn, Outcome outcome) throws SQLException {
        Agent agent = outcome.agent();
        try (PreparedStatement ps = conn.prepareStatement(UPDATE)) {
            ps.setString(1, agent.name());
            ps.setString(2, agent.storedStatus().wireName());
            Sql.setJson(ps, 3, PermissionJson.render(agent.permissions()).toString());
            Sql.setInstant(ps, 4, agent.expiresAt());
            Sql.setJson(ps, 5, json(agent.metadata()));
            ps.setTimestamp(6, Timestamp.from(agent.updatedAt()));
            Sql.setJsonOrNull(ps, 7, agent.budget().map(BudgetJson::stored));
            ps.setBytes(8, outcome.newTokenHash().orElse(null));
            ps.setString(9, agent.storedStatus().wireName());
            ps.setTimestamp(10, Timestamp.from(agent.updatedAt()));
            ps.setString(11, agent.id().value());
            ps.executeUpdate();
        }
    }

    private static void appendAll(Connection conn, List<StreamEvent.Draft> events) throws SQLException {
        for (StreamEvent.Draft event : events) {
            EventOutbox.append(conn, event);
        }
    }

    private static Optional<Agent> queryOne(Connection conn, String sql, String id) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, id);
            return first(ps);
        }
    }

    private static Optional<Agent> first(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? StoredRows.read("agents", "id", rs, JdbcAgentRepository::read) : Optional.empty();
        }
    }

    private static Agent read(ResultSet rs) throws SQLException, JsonProcessingException {
        return new Agent(
                AgentId.of(rs.getString("id")),
                UserId.of(rs.getString("owner_id")),
                Sql.string(rs, "tenant_id").map(TenantId::of),
                rs.getString("name"),
                WireEnum.parse(AgentType.class, rs.getString("type")).orElseThrow(),
                WireEnum.parse(AgentStatus.class, rs.getString("status")).orElseThrow(),
                PermissionJson.fromStored(Json.mapper().readTree(rs.getString("permissions"))),
                Sql.instant(rs, "expires_at"),
                Json.mapper().readValue(rs.getString("metadata"), MAP),
                Sql.requiredInstant(rs, "created_at"),
                Sql.requiredInstant(rs, "updated_at"),
                Sql.string(rs, "budget").map(BudgetJson::fromStored));
    }

    private static String json(Map<String, Object> value) {
        try {
            return Json.mapper().writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
