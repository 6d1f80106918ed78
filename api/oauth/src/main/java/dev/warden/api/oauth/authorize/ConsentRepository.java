package dev.warden.api.oauth.authorize;

import dev.warden.runtime.db.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/** Remembered consent per user, client and resource ({@code oauth_consents}): the scopes allowed so far. */
public final class ConsentRepository {
    private static final String SELECT = """
            SELECT scope FROM oauth_consents WHERE user_id = ? AND client_id = ? AND resource = ?""";
    private static final String UPSERT = """
            INSERT INTO oauth_consents (user_id, client_id, resource, scope, granted_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (user_id, client_id, resource) DO UPDATE SET
                scope = (SELECT string_agg(DISTINCT s, ' ' ORDER BY s)
                         FROM unnest(string_to_array(oauth_consents.scope || ' ' || EXCLUDED.scope, ' ')) AS s),
                granted_at = EXCLUDED.granted_at""";

    private final Database db;

    public ConsentRepository(Database db) {
        this.db = db;
    }

    /** True when the user already allowed every one of {@code scopes}. */
    boolean covers(String userId, String clientId, String resource, List<String> scopes) {
        return allowed(userId, clientId, resource)
                .map(a -> a.containsAll(scopes))
                .orElse(false);
    }

    /** Adds {@code scopes} to what the user allowed (the union is taken in the one statement). */
    void remember(String userId, String clientId, String resource, List<String> scopes, Instant now) {
        TreeSet<String> all = new TreeSet<>(scopes);
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(UPSERT)) {
                ps.setString(1, userId);
                ps.setString(2, clientId);
                ps.setString(3, resource);
                ps.setString(4, String.join(" ", all));
                ps.setTimestamp(5, Timestamp.from(now));
                return ps.executeUpdate();
            }
        });
    }

    private Optional<List<String>> allowed(String userId, String clientId, String resource) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(SELECT)) {
                ps.setString(1, userId);
                ps.setString(2, clientId);
                ps.setString(3, resource);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(Arrays.asList(rs.getString(1).split(" "))) : Optional.empty();
                }
            }
        });
    }
}
