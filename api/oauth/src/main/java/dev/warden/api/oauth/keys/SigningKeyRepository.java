package dev.warden.api.oauth.keys;

import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The {@code oauth_signing_keys} table: private JWKs as stored (sealed), public JWKs in clear. */
final class SigningKeyRepository {
    /** One row. */
    record StoredKey(
            String kid,
            String algorithm,
            String sealedPrivateJwk,
            String publicJwk,
            Instant createdAt,
            Instant expiresAt) {}

    private static final String SELECT_UNEXPIRED = """
            SELECT kid, algorithm, private_jwk, public_jwk, created_at, expires_at FROM oauth_signing_keys
            WHERE expires_at > ? ORDER BY created_at""";
    private static final String INSERT = """
            INSERT INTO oauth_signing_keys (kid, algorithm, private_jwk, public_jwk, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?)""";
    /** Serializes rotation across instances (one key made per period, not one per instance). */
    private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtext('warden.oauth.signing-keys'))";

    private static final String NEWEST = "SELECT max(created_at) FROM oauth_signing_keys";

    private final Database db;

    SigningKeyRepository(Database db) {
        this.db = db;
    }

    List<StoredKey> unexpired(Instant now) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(SELECT_UNEXPIRED)) {
                ps.setTimestamp(1, Timestamp.from(now));
                try (ResultSet rs = ps.executeQuery()) {
                    List<StoredKey> keys = new ArrayList<>();
                    while (rs.next()) {
                        keys.add(new StoredKey(
                                rs.getString("kid"),
                                rs.getString("algorithm"),
                                rs.getString("private_jwk"),
                                rs.getString("public_jwk"),
                                Sql.requiredInstant(rs, "created_at"),
                                Sql.requiredInstant(rs, "expires_at")));
                    }
                    return keys;
                }
            }
        });
    }

    /**
     * Under the rotation lock: inserts {@code make}'s key unless another instance made one after
     * {@code newerThan} meanwhile.
     *
     * @return true when a key was inserted
     */
    boolean insertUnlessNewer(Instant newerThan, Supplier<StoredKey> make) {
        return db.inTransaction(conn -> {
            try (PreparedStatement lock = conn.prepareStatement(LOCK)) {
                lock.execute();
            }
            try (PreparedStatement ps = conn.prepareStatement(NEWEST);
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                Timestamp newest = rs.getTimestamp(1);
                if (newest != null
                        && newest.toInstant().truncatedTo(ChronoUnit.MILLIS).isAfter(newerThan)) {
                    return false;
                }
            }
            StoredKey key = make.get();
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, key.kid());
                ps.setString(2, key.algorithm());
                ps.setString(3, key.sealedPrivateJwk());
                ps.setString(4, key.publicJwk());
                ps.setTimestamp(5, Timestamp.from(key.createdAt()));
                ps.setTimestamp(6, Timestamp.from(key.expiresAt()));
                ps.executeUpdate();
            }
            return true;
        });
    }
}
