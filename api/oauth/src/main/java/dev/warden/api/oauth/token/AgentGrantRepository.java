package dev.warden.api.oauth.token;

import dev.warden.authorizer.domain.Ids;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Grants of the tokens issued to agents before tokens stopped having rows (table {@code oauth_agent_grants}; D185:
 * nothing is inserted any more, and such a token expires within the agent-token lifetime). Such a token is active
 * only while every agent of its chain is active and still has the token it presented, every delegation the chain
 * relies on is unrevoked and unexpired, the user's grant the chain started from is usable, and, when the client is a
 * bound service agent, that binding is the one the token was issued under: one query. New tokens name their
 * issuance with an id of {@link #newStatelessId()}.
 */
public final class AgentGrantRepository {
    /** The prefix of these grants' ids (user grants are UUIDs; grants without a row are {@code agc_}). */
    static final String PREFIX = "agr_";

    /**
     * One token's grant.
     *
     * @param rootGrantId   the user's grant (oauth_grants) the chain started from; empty for client credentials
     * @param agentIds      the acting agents, first actor first (for client credentials: the agent itself)
     * @param tokenHashes   SHA-256 of each agent's token when the token was issued, in the same order (a stored
     *                      row's; empty for a grant without a row, whose token carries the agents' versions)
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

    private final Database db;

    AgentGrantRepository(Database db) {
        this.db = db;
    }

    /** A new id for a grant that has no row (a client-credentials token, D185): it names the token's issuance. */
    static String newStatelessId() {
        return Ids.mint("agc");
    }

    static boolean isAgentGrant(String grantId) {
        return grantId.startsWith(PREFIX);
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
