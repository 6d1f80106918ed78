package dev.warden.api.auth;

import dev.warden.api.db.Database;
import dev.warden.api.db.Sql;
import dev.warden.authorizer.domain.UserId;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

/** {@link ApiTokenRepository} on Postgres table {@code api_tokens}. */
public final class JdbcApiTokenRepository implements ApiTokenRepository {
    static final String INSERT =
            "INSERT INTO api_tokens (id, name, user_id, token_hash, created_at) VALUES (?, ?, ?, ?, ?)";
    static final String FIND_ACTIVE = "SELECT id, name, user_id, created_at, revoked_at FROM api_tokens "
            + "WHERE token_hash = ? AND revoked_at IS NULL";
    static final String REVOKE = "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL";

    private final Database db;

    public JdbcApiTokenRepository(Database db) {
        this.db = db;
    }

    @Override
    public void insert(ApiToken token, byte[] tokenHash) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, token.id());
                ps.setString(2, token.name());
                ps.setString(3, token.userId().value());
                ps.setBytes(4, tokenHash);
                ps.setTimestamp(5, Timestamp.from(token.createdAt()));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public Optional<ApiToken> findActiveByHash(byte[] tokenHash) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND_ACTIVE)) {
                ps.setBytes(1, tokenHash);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new ApiToken(rs.getString("id"), rs.getString("name"),
                            UserId.of(rs.getString("user_id")), Sql.requiredInstant(rs, "created_at"),
                            Sql.instant(rs, "revoked_at")));
                }
            }
        });
    }

    @Override
    public boolean revoke(String id, Instant at) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(REVOKE)) {
                ps.setTimestamp(1, Timestamp.from(at));
                ps.setString(2, id);
                return ps.executeUpdate() == 1;
            }
        });
    }
}
