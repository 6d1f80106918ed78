package dev.warden.api.oauth.agents;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.oauth.clients.GrantTypes;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.db.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Service agents bound to an OAuth client (table {@code oauth_agent_clients}). The client is derived, not
 * registered: its id is the agent id, its secret the agent's current token (compared as the stored SHA-256), and
 * it exists only while the agent is active. Rotating the agent's token or revoking the agent therefore ends the
 * client credential at once, on every instance ({@link BoundAgentClients} remembers a read per agent version).
 */
public final class AgentClientRepository {
    /** The client-registration source of a bound agent. */
    public static final String REGISTERED_VIA = "agent";
    /** What a bound agent's client may do. */
    public static final List<String> GRANT_TYPES =
            List.of(GrantTypes.CLIENT_CREDENTIALS, GrantTypes.TOKEN_EXCHANGE, GrantTypes.CIBA);

    private static final String BIND = """
            INSERT INTO oauth_agent_clients (agent_id, created_at) VALUES (?, ?) ON CONFLICT (agent_id) DO NOTHING""";
    private static final String UNBIND = "DELETE FROM oauth_agent_clients WHERE agent_id = ?";
    private static final String FIND = """
            SELECT a.id, a.name, a.token_hash, c.created_at, a.updated_at FROM oauth_agent_clients c JOIN agents a ON a.id = c.agent_id
            WHERE c.agent_id = ? AND a.status = 'active' AND (a.expires_at IS NULL OR a.expires_at > ?)""";
    private static final String BOUND_AT = "SELECT created_at FROM oauth_agent_clients WHERE agent_id = ?";

    private final Database db;

    public AgentClientRepository(Database db) {
        this.db = db;
    }

    /** Binds agent {@code agentId}; false when it already was. */
    public boolean bind(String agentId, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(BIND)) {
                ps.setString(1, agentId);
                ps.setTimestamp(2, Timestamp.from(now));
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Unbinds agent {@code agentId}; false when it was not bound. */
    public boolean unbind(String agentId) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(UNBIND)) {
                ps.setString(1, agentId);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** When agent {@code agentId} was bound, if it is. */
    public Optional<Instant> boundAt(String agentId) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(BOUND_AT)) {
                ps.setString(1, agentId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getTimestamp(1).toInstant()) : Optional.empty();
                }
            }
        });
    }

    /** A bound agent's client, with the agent's version ({@code updatedAt}) it was read at. */
    public record Bound(OAuthClient client, Instant agentUpdatedAt) {}

    /** The client of bound, active agent {@code clientId}, if there is one at {@code now}, with its version. */
    public Optional<Bound> bound(String clientId, Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND)) {
                ps.setString(1, clientId);
                ps.setTimestamp(2, Timestamp.from(now));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new Bound(
                            client(
                                    rs.getString(1),
                                    rs.getString(2),
                                    rs.getBytes(3),
                                    rs.getTimestamp(4).toInstant()),
                            rs.getTimestamp(5).toInstant()));
                }
            }
        });
    }

    private static OAuthClient client(String agentId, String name, byte[] tokenHash, Instant boundAt) {
        ObjectNode metadata = Json.mapper()
                .createObjectNode()
                .put("client_id", agentId)
                .put("client_name", name)
                .put("token_endpoint_auth_method", OAuthClient.BASIC);
        GRANT_TYPES.forEach(metadata.putArray("grant_types")::add);
        return new OAuthClient(
                agentId,
                Optional.of(tokenHash),
                Optional.empty(),
                name,
                List.of(),
                OAuthClient.BASIC,
                GRANT_TYPES,
                Optional.empty(),
                metadata,
                REGISTERED_VIA,
                boundAt);
    }
}
