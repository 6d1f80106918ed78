package dev.warden.api.oauth.clients;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.Json;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Optional;

/** The {@code oauth_clients} table. */
public final class ClientRepository {
    private static final String INSERT = """
            INSERT INTO oauth_clients (client_id, secret_hash, secret_expires_at, client_name, redirect_uris,
                token_endpoint_auth_method, grant_types, metadata, registered_via, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)""";
    private static final String SELECT = """
            SELECT client_id, secret_hash, secret_expires_at, client_name, redirect_uris, token_endpoint_auth_method,
                grant_types, metadata, registered_via, created_at FROM oauth_clients WHERE client_id = ?""";

    private final Database db;

    public ClientRepository(Database db) {
        this.db = db;
    }

    void insert(OAuthClient client) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, client.clientId());
                ps.setBytes(2, client.secretHash().orElse(null));
                Sql.setInstant(ps, 3, client.secretExpiresAt());
                ps.setString(4, client.clientName());
                ps.setArray(5, conn.createArrayOf("text", client.redirectUris().toArray()));
                ps.setString(6, client.authMethod());
                ps.setArray(7, conn.createArrayOf("text", client.grantTypes().toArray()));
                ps.setString(8, Json.mapper().writeValueAsString(client.metadata()));
                ps.setString(9, client.registeredVia());
                ps.setTimestamp(10, Timestamp.from(client.createdAt()));
                return ps.executeUpdate();
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The registered client {@code clientId}, if any. */
    public Optional<OAuthClient> find(String clientId) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(SELECT)) {
                ps.setString(1, clientId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(read(rs)) : Optional.empty();
                }
            }
        });
    }

    private static OAuthClient read(ResultSet rs) throws SQLException {
        ObjectNode metadata;
        try {
            metadata = (ObjectNode) Json.mapper().readTree(rs.getString("metadata"));
        } catch (JsonProcessingException | ClassCastException e) {
            throw new SQLException("oauth_clients.metadata of " + rs.getString("client_id") + " is not a JSON object");
        }
        return new OAuthClient(
                rs.getString("client_id"),
                Optional.ofNullable(rs.getBytes("secret_hash")),
                Sql.instant(rs, "secret_expires_at"),
                rs.getString("client_name"),
                Sql.strings(rs, "redirect_uris"),
                rs.getString("token_endpoint_auth_method"),
                Sql.strings(rs, "grant_types"),
                Optional.ofNullable(metadata.path("scope").textValue()),
                metadata,
                rs.getString("registered_via"),
                Sql.requiredInstant(rs, "created_at"));
    }
}
