package dev.warden.api.oauth.token;

import dev.warden.authorizer.domain.Ids;
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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Grants of the tokens issued to agents (table {@code oauth_agent_grants}): one per token, by client credentials
 * or token exchange. Such a token is active only while every agent of its chain is active and still has the
 * token it presented, every delegation the chain relies on is unrevoked and unexpired, the user's grant the
 * chain started from is usable, and, when the client is a bound service agent, that binding is the one the token
 * was issued under (unbinding ends its tokens; binding again does not bring them back): one query, so a
 * revocation on any instance is seen by the next check on every instance. Rows are purged an hour after their token expired.
 */
public final class AgentGrantRepository {
    /** The prefix of these grants' ids (user grants are UUIDs). */
    static final String PREFIX = "agr_";

    private static final long PURGE_EVERY = 1000;
    private static final Duration KEEP_EXPIRED = Duration.ofHours(1);

    /**
     * One token's grant.
     *
     * @param rootGrantId   the user's grant (oauth_grants) the chain started from; empty for client credentials
     * @param agentIds      the acting agents, first actor first (for client credentials: the agent itself)
     * @param tokenHashes   SHA-256 of each agent's token when the token was issued, in the same order
     * @param delegationIds every delegation the chain relies on
     */
    public record AgentGrant(
            String id,
            String grantType,
            String clientId,
            String subject,
            String subjectKind,
            Optional<String> rootGrantId,
            List<String> agentIds,
            List<byte[]> tokenHashes,
            List<String> delegationIds,
            String scope,
            String resource,
            Instant createdAt,
            Instant expiresAt) {
        public AgentGrant {
            agentIds = List.copyOf(agentIds);
            tokenHashes = List.copyOf(tokenHashes);
            delegationIds = List.copyOf(delegationIds);
        }
    }

    private static final String INSERT = """
            INSERT INTO oauth_agent_grants (id, grant_type, client_id, subject, subject_kind, root_grant_id, agent_ids,
                agent_token_hashes, delegation_ids, scope, resource, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""";
    private static final String FIND = """
            SELECT id, grant_type, client_id, subject, subject_kind, root_grant_id, agent_ids, agent_token_hashes,
                delegation_ids, scope, resource, created_at, expires_at
            FROM oauth_agent_grants WHERE id = ?""";
    private static final String ACTIVE = """
            SELECT ag.expires_at > ?
              AND (ag.root_grant_id IS NULL OR EXISTS (SELECT 1 FROM oauth_grants g WHERE g.id = ag.root_grant_id AND
            """ + GrantRepository.USABLE + """
            ))
              AND NOT EXISTS (SELECT 1 FROM unnest(ag.agent_ids, ag.agent_token_hashes) AS x (agent_id, token_hash)
                  LEFT JOIN agents a ON a.id = x.agent_id
                  WHERE a.id IS NULL OR a.status <> 'active' OR a.token_hash <> x.token_hash OR a.expires_at <= ?)
              AND NOT EXISTS (SELECT 1 FROM unnest(ag.delegation_ids) AS y (delegation_id)
                  LEFT JOIN delegations d ON d.id = y.delegation_id
                  WHERE d.id IS NULL OR d.revoked_at IS NOT NULL OR d.expires_at <= ?)
              AND NOT EXISTS (SELECT 1 FROM oauth_revoked_access_tokens t WHERE t.jti = ?)
              AND (NOT EXISTS (SELECT 1 FROM agents ca WHERE ca.id = ag.client_id)
                  OR EXISTS (SELECT 1 FROM oauth_agent_clients c WHERE c.agent_id = ag.client_id
                      AND c.created_at <= ag.created_at))
            FROM oauth_agent_grants ag WHERE ag.id = ?""";
    private static final String PURGE = "DELETE FROM oauth_agent_grants WHERE expires_at < ?";

    private final Database db;
    private final AtomicLong inserts = new AtomicLong();

    AgentGrantRepository(Database db) {
        this.db = db;
    }

    /** A new grant id. */
    static String newId() {
        return Ids.mint("agr");
    }

    /** A new id for a grant that has no row (a client-credentials token, D185): it names the token's issuance. */
    static String newStatelessId() {
        return Ids.mint("agc");
    }

    static boolean isAgentGrant(String grantId) {
        return grantId.startsWith(PREFIX);
    }

    /** Inside {@code conn}'s transaction. */
    void insert(Connection conn, AgentGrant grant) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
            ps.setString(1, grant.id());
            ps.setString(2, grant.grantType());
            ps.setString(3, grant.clientId());
            ps.setString(4, grant.subject());
            ps.setString(5, grant.subjectKind());
            Sql.setString(ps, 6, grant.rootGrantId());
            ps.setArray(7, conn.createArrayOf("text", grant.agentIds().toArray()));
            ps.setArray(8, conn.createArrayOf("bytea", grant.tokenHashes().toArray(new byte[0][])));
            ps.setArray(9, conn.createArrayOf("text", grant.delegationIds().toArray()));
            ps.setString(10, grant.scope());
            ps.setString(11, grant.resource());
            ps.setTimestamp(12, Timestamp.from(grant.createdAt()));
            ps.setTimestamp(13, Timestamp.from(grant.expiresAt()));
            ps.executeUpdate();
        }
        if (inserts.incrementAndGet() % PURGE_EVERY == 0) {
            try (PreparedStatement ps = conn.prepareStatement(PURGE)) {
                ps.setTimestamp(1, Timestamp.from(grant.createdAt().minus(KEEP_EXPIRED)));
                ps.executeUpdate();
            }
        }
    }

    /** The grant {@code id}, if it exists. */
    public Optional<AgentGrant> find(String id) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND)) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new AgentGrant(
                            rs.getString("id"),
                            rs.getString("grant_type"),
                            rs.getString("client_id"),
                            rs.getString("subject"),
                            rs.getString("subject_kind"),
                            Sql.string(rs, "root_grant_id"),
                            Sql.strings(rs, "agent_ids"),
                            hashes(rs.getArray("agent_token_hashes")),
                            Sql.strings(rs, "delegation_ids"),
                            rs.getString("scope"),
                            rs.getString("resource"),
                            Sql.requiredInstant(rs, "created_at"),
                            Sql.requiredInstant(rs, "expires_at")));
                }
            }
        });
    }

    /** True when an access token {@code jti} of grant {@code grantId} may still be used at {@code now}. */
    boolean isActive(String grantId, String jti, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(ACTIVE)) {
                Timestamp at = Timestamp.from(now);
                ps.setTimestamp(1, at);
                ps.setTimestamp(2, at);
                ps.setTimestamp(3, at);
                ps.setTimestamp(4, at);
                ps.setString(5, jti);
                ps.setString(6, grantId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() && rs.getBoolean(1);
                }
            }
        });
    }

    private static List<byte[]> hashes(Array array) throws SQLException {
        List<byte[]> out = new ArrayList<>();
        if (array != null) {
            for (Object o : (Object[]) array.getArray()) {
                out.add((byte[]) o);
            }
        }
        return out;
    }
}
