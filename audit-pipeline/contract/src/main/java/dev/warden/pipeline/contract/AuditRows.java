package dev.warden.pipeline.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;

/**
 * The row form of an audit entry in {@code audit_events}, read back: what {@code GET /audit}, exports and the replay of
 * {@code audit} stream events read (the writer's side is {@code PostgresAuditWriter.csv}).
 */
public final class AuditRows {
    /** The columns {@link #entry(ResultSet)} reads. */
    public static final String COLUMNS = "id, agent_id, user_id, caller_id, action, resource, parameters, result, "
            + "reason, duration_ms, tokens_cost, ts, ip, user_agent, caller_ip, reason_detail, delegation_chain";

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private AuditRows() {}

    /** The entry of the current row of {@code rs}, which holds {@link #COLUMNS}. */
    public static AuditEntry entry(ResultSet rs) throws SQLException, JsonProcessingException {
        return new AuditEntry(
                rs.getString("id"),
                rs.getString("agent_id"),
                Optional.ofNullable(rs.getString("user_id")),
                rs.getString("caller_id"),
                rs.getString("action"),
                rs.getString("resource"),
                Json.mapper().readValue(rs.getString("parameters"), MAP),
                WireEnum.parse(AuditResult.class, rs.getString("result")).orElseThrow(),
                Optional.ofNullable(rs.getString("reason")),
                rs.getDouble("duration_ms"),
                rs.getLong("tokens_cost"),
                rs.getTimestamp("ts").toInstant(),
                Optional.ofNullable(rs.getString("ip")),
                Optional.ofNullable(rs.getString("user_agent")),
                Optional.ofNullable(rs.getString("caller_ip")),
                Optional.ofNullable(rs.getString("reason_detail")),
                chain(rs.getArray("delegation_chain")));
    }

    private static java.util.List<String> chain(java.sql.Array array) throws SQLException {
        return array == null ? java.util.List.of() : java.util.List.of((String[]) array.getArray());
    }
}
