package dev.warden.runtime.db;

import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/**
 * Secrets every instance of a deployment shares, kept in table {@code server_secrets}: the first instance to ask
 * for one creates it (32 random bytes), every later ask on any instance reads the same value.
 */
public final class ServerSecrets {
    static final String INSERT =
            "INSERT INTO server_secrets (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING";
    static final String SELECT = "SELECT secret FROM server_secrets WHERE name = ?";

    private static final SecureRandom RANDOM = new SecureRandom();

    private ServerSecrets() {}

    /** The secret named {@code name}, created when missing. */
    public static byte[] get(Database db, String name) {
        byte[] candidate = new byte[32];
        RANDOM.nextBytes(candidate);
        return db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, name);
                ps.setBytes(2, candidate);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement(SELECT)) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBytes(1);
                }
            }
        });
    }
}
