package dev.warden.api.webhooks;

import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.WireEnum;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import dev.warden.runtime.db.Sql;
import dev.warden.sinks.webhooks.WebhookDelivery;
import dev.warden.sinks.webhooks.WebhookDirectory;
import dev.warden.sinks.webhooks.WebhookEndpoint;
import java.net.URI;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * Webhook endpoints on Postgres table {@code webhook_endpoints}. Serves both the REST surface
 * ({@link WebhookRepository}) and the delivery worker ({@link WebhookDirectory}); secrets pass through the
 * {@link SecretCipher} on their way in and out.
 */
public final class JdbcWebhookRepository implements WebhookRepository, WebhookDirectory {
    private static final Logger LOG = Logger.getLogger(JdbcWebhookRepository.class.getName());
    private static final String COLUMNS = "id, owner_id, url, event_types, description, status, created_at";

    static final String INSERT = "INSERT INTO webhook_endpoints (id, owner_id, url, event_types, description, secret,"
            + " status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'active', ?)";
    static final String FIND = "SELECT " + COLUMNS + " FROM webhook_endpoints WHERE id = ?";
    static final String LIST_ALL = "SELECT " + COLUMNS + " FROM webhook_endpoints ORDER BY created_at, id";
    static final String LIST_OWNED =
            "SELECT " + COLUMNS + " FROM webhook_endpoints WHERE owner_id = ?" + " ORDER BY created_at, id";
    static final String LIST_ADMIN =
            "SELECT " + COLUMNS + " FROM webhook_endpoints WHERE owner_id IS NULL" + " ORDER BY created_at, id";
    static final String COUNT_OWNED = "SELECT count(*) FROM webhook_endpoints WHERE owner_id = ?";
    static final String COUNT_ADMIN = "SELECT count(*) FROM webhook_endpoints WHERE owner_id IS NULL";
    static final String DELETE = "DELETE FROM webhook_endpoints WHERE id = ?";
    static final String SET_STATUS = "UPDATE webhook_endpoints SET status = ?, disabled_at = ? WHERE id = ?";
    /** Deliveries kept per endpoint. */
    static final int DELIVERIES_KEPT = 50;

    static final String RECORD_DELIVERY = "INSERT INTO webhook_deliveries (endpoint_id, event_id, outcome, attempts, "
            + "last, finished_at) SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?)";
    static final String PRUNE_DELIVERIES = "DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND id <= ("
            + "SELECT id FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id DESC OFFSET " + DELIVERIES_KEPT
            + " LIMIT 1)";
    static final String RECENT_DELIVERIES = "SELECT endpoint_id, event_id, outcome, attempts, last, finished_at "
            + "FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id DESC LIMIT ?";
    static final String ACTIVE = "SELECT " + COLUMNS + ", secret FROM webhook_endpoints WHERE status = 'active'"
            + " ORDER BY created_at, id";
    static final String DISABLE =
            "UPDATE webhook_endpoints SET status = 'disabled', disabled_at = ?" + " WHERE id = ? AND status = 'active'";

    private final Database db;
    private final SecretCipher cipher;
    private final Set<String> unreadable = ConcurrentHashMap.newKeySet();

    public JdbcWebhookRepository(Database db, SecretCipher cipher) {
        this.db = db;
        this.cipher = cipher;
    }

    @Override
    public void insert(Webhook webhook, String secret) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(INSERT)) {
                ps.setString(1, webhook.id());
                Sql.setString(ps, 2, webhook.owner().user().map(UserId::value));
                ps.setString(3, webhook.url().toString());
                ps.setArray(4, types(conn, webhook.eventTypes()));
                Sql.setString(ps, 5, webhook.description());
                ps.setString(6, cipher.seal(webhook.id(), secret));
                ps.setTimestamp(7, Timestamp.from(webhook.createdAt()));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public Optional<Webhook> find(String id) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(FIND)) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(webhook(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public List<Webhook> listAll() {
        return query(LIST_ALL, Optional.empty());
    }

    @Override
    public List<Webhook> listOwnedBy(Webhook.Owner owner) {
        return owner.user().isPresent()
                ? query(LIST_OWNED, owner.user().map(UserId::value))
                : query(LIST_ADMIN, Optional.empty());
    }

    @Override
    public int countOwnedBy(Webhook.Owner owner) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(owner.isAdmin() ? COUNT_ADMIN : COUNT_OWNED)) {
                if (!owner.isAdmin()) {
                    ps.setString(1, owner.user().orElseThrow().value());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
    }

    @Override
    public boolean delete(String id) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(DELETE)) {
                ps.setString(1, id);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public List<WebhookEndpoint> activeEndpoints() {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(ACTIVE);
                    ResultSet rs = ps.executeQuery()) {
                List<WebhookEndpoint> out = new ArrayList<>();
                while (rs.next()) {
                    Webhook webhook = webhook(rs);
                    secret(webhook.id(), rs.getString("secret"))
                            .ifPresent(secret -> out.add(new WebhookEndpoint(
                                    webhook.id(),
                                    webhook.url(),
                                    Set.copyOf(webhook.eventTypes()),
                                    webhook.owner().user().map(UserId::value),
                                    secret,
                                    webhook.createdAt())));
                }
                return out;
            }
        });
    }

    @Override
    public void disable(String endpointId, Instant at) {
        db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(DISABLE)) {
                ps.setTimestamp(1, Timestamp.from(at));
                ps.setString(2, endpointId);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public boolean setActive(String id, boolean active, Instant at) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(SET_STATUS)) {
                ps.setString(1, active ? "active" : "disabled");
                ps.setTimestamp(2, active ? null : Timestamp.from(at));
                ps.setString(3, id);
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Keeps the delivery and drops the endpoint's oldest beyond the newest {@value #DELIVERIES_KEPT}. */
    @Override
    public void recordDelivery(WebhookDelivery delivery) {
        db.inTransaction(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(RECORD_DELIVERY)) {
                ps.setString(1, delivery.endpointId());
                ps.setString(2, delivery.eventId());
                ps.setString(3, delivery.outcome());
                ps.setInt(4, delivery.attempts());
                ps.setString(5, delivery.last());
                ps.setTimestamp(6, Timestamp.from(delivery.finishedAt()));
                ps.setString(7, delivery.endpointId());
                ps.executeUpdate();
            }
            try (PreparedStatement ps = conn.prepareStatement(PRUNE_DELIVERIES)) {
                ps.setString(1, delivery.endpointId());
                ps.setString(2, delivery.endpointId());
                ps.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public List<WebhookDelivery> recentDeliveries(String id, int limit) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(RECENT_DELIVERIES)) {
                ps.setString(1, id);
                ps.setInt(2, limit);
                List<WebhookDelivery> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new WebhookDelivery(
                                rs.getString("endpoint_id"),
                                rs.getString("event_id"),
                                rs.getString("outcome"),
                                rs.getInt("attempts"),
                                rs.getString("last"),
                                Sql.requiredInstant(rs, "finished_at")));
                    }
                }
                return out;
            }
        });
    }

    /** The clear secret, or nothing (logged once per endpoint) when it cannot be decrypted. */
    private Optional<String> secret(String id, String stored) {
        try {
            String secret = cipher.open(id, stored);
            unreadable.remove(id);
            return Optional.of(secret);
        } catch (IllegalStateException e) {
            if (unreadable.add(id)) {
                LOG.warning("webhook " + id + " receives nothing: " + e.getMessage());
            }
            return Optional.empty();
        }
    }

    private List<Webhook> query(String sql, Optional<String> param) {
        return db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                if (param.isPresent()) {
                    ps.setString(1, param.get());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    List<Webhook> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(webhook(rs));
                    }
                    return out;
                }
            }
        });
    }

    private static Array types(Connection conn, List<EventType> types) throws SQLException {
        return conn.createArrayOf(
                "text", types.stream().map(EventType::wireName).toArray());
    }

    private static Webhook webhook(ResultSet rs) throws SQLException {
        Array array = rs.getArray("event_types");
        List<EventType> types = Arrays.stream((String[]) array.getArray())
                .flatMap(name -> WireEnum.parse(EventType.class, name).stream())
                .toList();
        return new Webhook(
                rs.getString("id"),
                new Webhook.Owner(Sql.string(rs, "owner_id").map(UserId::of)),
                URI.create(rs.getString("url")),
                types,
                Sql.string(rs, "description"),
                WireEnum.parse(WebhookStatus.class, rs.getString("status")).orElseThrow(),
                Sql.requiredInstant(rs, "created_at"));
    }
}
