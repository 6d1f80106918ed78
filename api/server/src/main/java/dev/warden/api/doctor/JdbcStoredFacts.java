package dev.warden.api.doctor;

import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

/**
 * {@link StoredFacts} on the Postgres tables {@code oauth_signing_keys} and {@code webhook_endpoints}. It only
 * reads them, and reads no key or secret: a creation time and a count of rows.
 */
final class JdbcStoredFacts implements StoredFacts {
    static final String NEWEST_SIGNING_KEY =
            "SELECT max(created_at) AS newest FROM oauth_signing_keys WHERE expires_at > ?";
    /** A sealed secret starts with the cipher's {@code aesgcm:v1:} (webhooks.SecretCipher); anything else is clear. */
    static final String WEBHOOK_SECRETS_IN_CLEAR =
            "SELECT count(*) FROM webhook_endpoints WHERE left(secret, 10) <> 'aesgcm:v1:'";

    private final Database db;

    /** Facts read from {@code db}. */
    JdbcStoredFacts(Database db) {
        this.db = db;
    }

    @Override
    public Optional<Instant> newestSigningKey(Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(NEWEST_SIGNING_KEY)) {
                ps.setTimestamp(1, Timestamp.from(now));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return Sql.instant(rs, "newest");
                }
            }
        });
    }

    @Override
    public long webhookSecretsInClear() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(WEBHOOK_SECRETS_IN_CLEAR);
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    @Override
    public boolean administratorExists() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT 1 FROM users WHERE administrator LIMIT 1");
                    ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        });
    }
}
