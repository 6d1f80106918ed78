package dev.warden.api.deadletters;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.db.Database;
import dev.warden.api.db.Sql;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.Params;
import dev.warden.api.http.Responses;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Base64;
import java.util.Optional;

/**
 * {@code GET /admin/dead-letters?sink=&limit=}: the records sinks gave up on ({@code sink_dead_letters}, see
 * docs/errors.md), newest first, for the administrator only. Each shows where the record was, why it was
 * refused, and its bytes: as text ({@code value}, invalid UTF-8 replaced) and exactly ({@code valueBase64}).
 */
public final class DeadLetterRoutes implements DeclaredService {
    static final String LIST = "SELECT id, sink, topic, partition, record_offset, record_key, record_value, error, "
            + "failed_at FROM sink_dead_letters WHERE (?::text IS NULL OR sink = ?) ORDER BY id DESC LIMIT ?";
    private static final int MAX_LIMIT = 1000;

    private final Database db;

    public DeadLetterRoutes(Database db) {
        this.db = db;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.administrator("dead letters"), this::list);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<String> sink = Params.query(req, "sink", v -> v);
        int limit = Params.query(req, "limit", DeadLetterRoutes::limit).orElse(100);
        ArrayNode body = db.withConnection(conn -> {
            try (PreparedStatement ps = conn.prepareStatement(LIST)) {
                ps.setString(1, sink.orElse(null));
                ps.setString(2, sink.orElse(null));
                ps.setInt(3, limit);
                ArrayNode out = Json.mapper().createArrayNode();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(row(rs));
                    }
                }
                return out;
            }
        });
        Responses.json(res, Status.OK_200, body);
    }

    private static ObjectNode row(ResultSet rs) throws java.sql.SQLException {
        ObjectNode node = Json.mapper().createObjectNode()
                .put("id", Long.toString(rs.getLong("id")))
                .put("sink", rs.getString("sink"))
                .put("topic", rs.getString("topic"))
                .put("partition", rs.getInt("partition"))
                .put("offset", rs.getLong("record_offset"));
        byte[] key = rs.getBytes("record_key");
        byte[] value = rs.getBytes("record_value");
        node.put("key", key == null ? null : new String(key, StandardCharsets.UTF_8));
        node.put("value", value == null ? null : new String(value, StandardCharsets.UTF_8));
        node.put("valueBase64", value == null ? null : Base64.getEncoder().encodeToString(value));
        node.put("error", rs.getString("error"));
        node.put("failedAt", Json.timestamp(Sql.requiredInstant(rs, "failed_at")));
        return node;
    }

    private static int limit(String value) {
        try {
            int n = Integer.parseInt(value);
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("must be a whole number from 1 to " + MAX_LIMIT);
    }
}
