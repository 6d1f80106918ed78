package dev.warden.sinks.external;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every kind of audit entry becomes an OCSF 1.8.0 event that the schema's own definitions accept ({@link OcsfSchema},
 * built from the pinned {@code ocsf-schema} files), in the class the mapping table of docs/audit-sinks.md names.
 */
class OcsfEncoderTest {
    static final OcsfSchema SCHEMA = OcsfSchema.load();
    static final Instant AT = Instant.parse("2026-11-28T10:00:00.123Z");

    static AuditEntry decision(String action, AuditResult result, String reason, String detail) {
        return new AuditEntry(
                "aud_decision" + action + reason,
                "agt_payer",
                Optional.of("usr_alice"),
                "agt_payer",
                action,
                "mcp:payments:refund:42",
                Map.of("amount", 250),
                result,
                Optional.ofNullable(reason),
                1.7,
                0,
                AT,
                Optional.of("10.0.0.1"),
                Optional.of("agent-runtime/1.0"),
                Optional.of("192.0.2.7"),
                Optional.ofNullable(detail));
    }

    static AuditEntry administrative(String action, String caller, String userId, Map<String, Object> parameters) {
        return new AuditEntry(
                "aud_admin" + action,
                "",
                Optional.ofNullable(userId),
                caller,
                AuditEntry.ADMINISTRATIVE_PREFIX + action,
                "organization:org_1/member:usr_bob",
                parameters,
                AuditResult.ALLOWED,
                Optional.empty(),
                0,
                0,
                AT,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    static void valid(ObjectNode event, int classUid) {
        assertThat(SCHEMA.problems(event)).as(event.toPrettyString()).isEmpty();
        assertThat(event.get("class_uid").asInt()).isEqualTo(classUid);
    }

    @Test
    void decisionsAreApiActivityWithTheSecurityControlProfile() {
        ObjectNode allowed = OcsfEncoder.encode(decision("read", AuditResult.ALLOWED, null, null), "0.1.0");
        valid(allowed, 6003);
        assertThat(allowed.get("type_uid").asLong()).isEqualTo(600302);
        assertThat(allowed.get("metadata").get("uid").asText()).isEqualTo("aud_decisionreadnull");
        assertThat(allowed.get("metadata").get("profiles").toString()).isEqualTo("[\"security_control\"]");
        assertThat(allowed.get("actor").get("user").get("uid").asText()).isEqualTo("agt_payer");
        assertThat(allowed.get("src_endpoint").get("ip").asText()).isEqualTo("192.0.2.7");
        assertThat(allowed.get("disposition_id").asInt()).isEqualTo(1);
        assertThat(allowed.get("time").asLong()).isEqualTo(AT.toEpochMilli());

        ObjectNode denied = OcsfEncoder.encode(
                decision("refund", AuditResult.DENIED, "CONDITION_NOT_MET", "condition of agent mcp:* refund: false"),
                "0.1.0");
        valid(denied, 6003);
        assertThat(denied.get("activity_id").asInt()).isEqualTo(99);
        assertThat(denied.get("activity_name").asText()).isEqualTo("refund");
        assertThat(denied.get("action_id").asInt()).isEqualTo(2);
        assertThat(denied.get("disposition_id").asInt()).isEqualTo(26);
        assertThat(denied.get("policy").get("name").asText()).contains("refund: false");
        assertThat(denied.get("unmapped").get("warden").get("reason").asText()).isEqualTo("CONDITION_NOT_MET");

        valid(OcsfEncoder.encode(decision("write", AuditResult.RATE_LIMITED, "RATE_LIMITED", null), "0.1.0"), 6003);
        ObjectNode waiting = OcsfEncoder.encode(
                decision("delete", AuditResult.DENIED, "APPROVAL_REQUIRED", "approval apr_1 requested"), "0.1.0");
        valid(waiting, 6003);
        assertThat(waiting.get("disposition").asText()).isEqualTo("Delayed");
    }

    @Test
    void accountSessionAccessAndEntityChangesAreIdentityAndAccessManagementEvents() {
        Map<String, Object> byAdmin = new LinkedHashMap<>();
        byAdmin.put("organization", "org_1");
        byAdmin.put("actor", Map.of("kind", "admin", "id", "admin"));
        byAdmin.put("target", Map.of("kind", "agent", "id", "agt_7"));
        for (String what : List.of("password.changed", "password.reset", "totp.enrolled", "passkey.removed")) {
            ObjectNode event =
                    OcsfEncoder.encode(administrative("account." + what, "usr_alice", "usr_alice", Map.of()), "0.1.0");
            valid(event, 3001);
        }
        valid(
                OcsfEncoder.encode(
                        administrative("account.admin-session.started", "adm_1", "adm_1", Map.of()), "0.1.0"),
                3002);
        valid(
                OcsfEncoder.encode(
                        administrative("account.administrator.granted", "adm_1", "usr_bob", Map.of()), "0.1.0"),
                3005);
        Map<String, Object> added = new LinkedHashMap<>(byAdmin);
        added.put("after", Map.of("role", "admin"));
        ObjectNode member = OcsfEncoder.encode(administrative("member.add", "usr_owner", "usr_bob", added), "0.1.0");
        valid(member, 3005);
        assertThat(member.get("privileges").toString()).contains("organization role admin");
        valid(OcsfEncoder.encode(administrative("member.remove", "usr_owner", "usr_bob", byAdmin), "0.1.0"), 3005);
        for (String what : List.of(
                "agent.revoke",
                "agent.suspend",
                "agent.resume",
                "delegation.revoke",
                "organization.create",
                "role.create",
                "role.delete",
                "approval.approve",
                "sink.pause",
                "sink.replay")) {
            ObjectNode event = OcsfEncoder.encode(administrative(what, "usr_owner", "usr_bob", byAdmin), "0.1.0");
            valid(event, 3004);
        }
    }

    @Test
    void aDecisionThroughDelegationsNamesItsChainInTheActor() {
        AuditEntry direct = administrative("x", "agt_c", "usr_1", Map.of());
        AuditEntry chained = new AuditEntry(
                "aud_chain",
                "agt_c",
                Optional.of("usr_1"),
                "agt_c",
                "read",
                "mcp:github:issues:7",
                Map.of(),
                AuditResult.ALLOWED,
                Optional.empty(),
                1.5,
                0,
                AT,
                Optional.empty(),
                Optional.empty(),
                Optional.of("203.0.113.9"),
                Optional.empty(),
                List.of("dlg_bc", "dlg_ab"));
        ObjectNode event = OcsfEncoder.encode(chained, "0.1.0");
        valid(event, 6003);
        assertThat(event.at("/actor/authorizations/0/policy/uid").asText()).isEqualTo("dlg_bc");
        assertThat(event.at("/actor/authorizations/1/policy/uid").asText()).isEqualTo("dlg_ab");
        assertThat(event.at("/actor/authorizations/0/decision").asText()).isEqualTo("delegated");
        assertThat(direct.delegationChain()).isEmpty();
    }

    @Test
    void signInsRefusalsLockoutsAndOAuthGrantsAreAuthenticationAndAccountChange() {
        Map<String, Object> session = new LinkedHashMap<>();
        session.put("method", "password");
        session.put("actor", Map.of("kind", "user", "id", "usr_alice"));
        session.put("target", Map.of("kind", "session", "id", "ses_1"));
        AuditEntry started = administrative("account.session.started", "usr_alice", "usr_alice", session)
                .withCallerIp("203.0.113.9");
        ObjectNode logon = OcsfEncoder.encode(started, "0.1.0");
        valid(logon, 3002);
        assertThat(logon.get("activity_id").asInt()).isEqualTo(1);
        assertThat(logon.at("/session/uid").asText()).isEqualTo("ses_1");
        assertThat(logon.at("/user/uid").asText()).isEqualTo("usr_alice");
        assertThat(logon.at("/src_endpoint/ip").asText()).isEqualTo("203.0.113.9");
        ObjectNode logoff =
                OcsfEncoder.encode(administrative("account.session.ended", "usr_alice", "usr_alice", session), "0.1.0");
        valid(logoff, 3002);
        assertThat(logoff.get("activity_id").asInt()).isEqualTo(2);

        ObjectNode refused = OcsfEncoder.encode(
                administrative(
                                "account.signin.failed",
                                "anonymous",
                                null,
                                Map.of("username", "mallory", "reason", "invalid_credentials"))
                        .withCallerIp("198.51.100.7"),
                "0.1.0");
        valid(refused, 3002);
        assertThat(refused.get("status").asText()).isEqualTo("Failure");
        assertThat(refused.get("status_detail").asText()).isEqualTo("invalid_credentials");
        assertThat(refused.at("/user/name").asText()).isEqualTo("mallory");

        ObjectNode locked = OcsfEncoder.encode(
                administrative("account.locked", "usr_alice", "usr_alice", Map.of("lockedUntil", "x")), "0.1.0");
        valid(locked, 3001);
        assertThat(locked.get("activity_id").asInt()).as("Lock").isEqualTo(9);

        Map<String, Object> grant = new LinkedHashMap<>();
        grant.put("grant", "grt_1");
        grant.put("grantType", "authorization_code");
        grant.put("actor", Map.of("kind", "user", "id", "usr_alice"));
        grant.put("target", Map.of("kind", "oauth-client", "id", "cli_ide"));
        ObjectNode granted = OcsfEncoder.encode(
                administrative("account.oauth-grant.created", "usr_alice", "usr_alice", grant), "0.1.0");
        valid(granted, 3002);
        assertThat(granted.get("auth_protocol_id").asInt()).isEqualTo(6);
        assertThat(granted.at("/service/uid").asText()).isEqualTo("cli_ide");
        assertThat(granted.at("/session/uid").asText()).isEqualTo("grt_1");
        valid(
                OcsfEncoder.encode(
                        administrative("account.oauth-grant.revoked", "usr_alice", "usr_alice", grant), "0.1.0"),
                3002);
    }

    @Test
    void theValidatorRefusesWhatTheSchemaDoesNotAllow() {
        ObjectNode event = OcsfEncoder.encode(decision("read", AuditResult.ALLOWED, null, null), "0.1.0");
        ObjectNode missing = event.deepCopy();
        missing.remove("api");
        assertThat(SCHEMA.problems(missing)).contains("api is required");
        ObjectNode unknown = event.deepCopy();
        unknown.put("verdict", "yes");
        assertThat(SCHEMA.problems(unknown)).contains("verdict is not an attribute here");
        ObjectNode badEnum = event.deepCopy();
        badEnum.put("disposition_id", 77);
        assertThat(SCHEMA.problems(badEnum)).anyMatch(p -> p.startsWith("disposition_id = 77 is not one of"));
        ObjectNode badType = event.deepCopy();
        badType.put("time", "yesterday");
        assertThat(SCHEMA.problems(badType)).anyMatch(p -> p.startsWith("time must be an integer"));
        ObjectNode badIp = event.deepCopy();
        ((ObjectNode) badIp.get("src_endpoint")).put("ip", "not-an-ip");
        assertThat(SCHEMA.problems(badIp)).contains("src_endpoint.ip must be an IP address");
        ObjectNode badType2 = event.deepCopy();
        badType2.put("type_uid", 600399);
        assertThat(SCHEMA.problems(badType2)).anyMatch(p -> p.startsWith("type_uid must be"));
        ObjectNode noProfile = event.deepCopy();
        ((ObjectNode) noProfile.get("metadata")).remove("profiles");
        assertThat(SCHEMA.problems(noProfile)).contains("disposition_id is not an attribute here");
        assertThat(SCHEMA.version()).isEqualTo(OcsfEncoder.VERSION);
    }
}
