package dev.warden.api.auth;

import dev.warden.authorizer.domain.UserId;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@link ApiTokenRepository} on Postgres table {@code api_tokens}. */
public final class JdbcApiTokenRepository implements ApiTokenRepository {
    private static final String COLUMNS = "id, name, user_id, scopes, created_at, expires_at, revoked_at";
    static final String INSERT =
            "INSERT INTO api_tokens (id, name, user_id, token_hash, created_at, scopes, expires_at) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final String FIND_ACTIVE =
            "SELECT " + COLUMNS + " FROM api_tokens " + "WHERE token_hash = ? AND revoked_at IS NULL";
    static final String FIND = "SELECT " + COLUMNS + " FROM api_tokens WHERE id = ?";
    static final String LIST_BY_USER = "SELECT " + COLUMNS
            + " FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL " + "ORDER BY created_at, id LIMIT 1000";
    static final String LIST_ALL =
            "SELECT " + COLUMNS + " FROM api_tokens WHERE revoked_at IS NULL " + "ORDER BY created_at, id LIMIT 1000";
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
                ps.setArray(6, conn.createArrayOf("text", token.scopes().toArray()));
                Sql.setInstant(ps, 7, token.expiresAt());
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
                    return rs.next() ? Optional.of(token(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public Optional<ApiToken> find(String id) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND)) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(token(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public List<ApiToken> listUnrevoked(UserId userId) {
        return list(LIST_BY_USER, Optional.of(userId));
    }

    @Override
    public List<ApiToken> listUnrevoked() {
        return list(LIST_ALL, Optional.empty());
    }

    private List<ApiToken> list(String sql, Optional<UserId> userId) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                if (userId.isPresent()) {
                    ps.setString(1, userId.get().value());
                }
                List<ApiToken> tokens = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        tokens.add(token(rs));
                    }
                }
                return tokens;
            }
        });
    }

    private static ApiToken token(ResultSet rs) throws SQLException {
        return new ApiToken(
                rs.getString("id"),
                rs.getString("name"),
                UserId.of(rs.getString("user_id")),
                Sql.strings(rs, "scopes"),
                Sql.requiredInstant(rs, "created_at"),
                Sql.instant(rs, "expires_at"),
                Sql.instant(rs, "revoked_at"));
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
