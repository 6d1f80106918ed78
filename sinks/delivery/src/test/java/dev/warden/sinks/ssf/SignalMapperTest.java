package dev.warden.sinks.ssf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.StreamEvent;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which Warden events are signals, with what members and about whom (docs/shared-signals.md's table). */
class SignalMapperTest {
    static final Instant AT = Instant.parse("2026-11-28T10:00:00Z");
    static final String ISS = "https://warden.example";

    static StreamEvent agentEvent(EventType type, Map<String, Object> extra) {
        Map<String, Object> data = new java.util.LinkedHashMap<>();
        data.put("agent", Map.of("id", "agt_1", "ownerId", "usr_1", "expiresAt", "2027-01-01T00:00:00Z"));
        data.put("actor", Map.of("kind", "user", "id", "usr_1"));
        data.putAll(extra);
        return new StreamEvent("42", type, AT, data, Optional.of("agt_1"), Optional.of("usr_1"));
    }

    @Test
    void agentLifecycleMapsToCaep() {
        Signal revoked = SignalMapper.signals(agentEvent(EventType.AGENT_REVOKED, Map.of()))
                .getFirst();
        assertThat(revoked.type()).isEqualTo(SignalTypes.SESSION_REVOKED);
        assertThat(revoked.subject().asSubId(ISS)).isEqualTo(Map.of("format", "iss_sub", "iss", ISS, "sub", "agt_1"));
        assertThat(revoked.ownerUser()).hasValue("usr_1");
        assertThat(revoked.members())
                .containsEntry("event_timestamp", AT.getEpochSecond())
                .containsEntry("initiating_entity", "admin")
                .containsEntry("reason_admin", Map.of("en", "agent revoked"));
        assertThat(SignalMapper.signals(agentEvent(EventType.AGENT_SUSPENDED, Map.of()))
                        .getFirst()
                        .type())
                .isEqualTo(SignalTypes.SESSION_REVOKED);
        Signal rotated = SignalMapper.signals(agentEvent(EventType.AGENT_ROTATED, Map.of()))
                .getFirst();
        assertThat(rotated.type()).isEqualTo(SignalTypes.CREDENTIAL_CHANGE);
        assertThat(rotated.members())
                .containsEntry("credential_type", "api-key")
                .containsEntry("change_type", "update");
    }

    @Test
    void theAgentItselfIsTheUserWhoInitiatedAndNoActorIsTheSystem() {
        StreamEvent self = agentEvent(EventType.AGENT_ROTATED, Map.of("actor", Map.of("kind", "agent", "id", "agt_1")));
        assertThat(SignalMapper.signals(self).getFirst().members()).containsEntry("initiating_entity", "user");
        StreamEvent nobody =
                new StreamEvent("1", EventType.AGENT_REVOKED, AT, Map.of(), Optional.of("agt_1"), Optional.of("usr_1"));
        assertThat(SignalMapper.signals(nobody).getFirst().members()).containsEntry("initiating_entity", "system");
    }

    @Test
    void onlyChangesToWhatTokensMayDoAreClaimChanges() {
        assertThat(SignalMapper.signals(agentEvent(EventType.AGENT_UPDATED, Map.of("changed", List.of("name")))))
                .isEmpty();
        Signal permissions = SignalMapper.signals(agentEvent(
                        EventType.AGENT_UPDATED, Map.of("changed", List.of("name", "permissions", "expiresAt"))))
                .getFirst();
        assertThat(permissions.type()).isEqualTo(SignalTypes.TOKEN_CLAIMS_CHANGE);
        assertThat(permissions.members().get("claims"))
                .isEqualTo(Map.of("warden_permissions", "changed", "warden_expires_at", "2027-01-01T00:00:00Z"));
    }

    @Test
    void aDelegationIsAClaimChangeOfItsDelegate() {
        Map<String, Object> delegation =
                Map.of("id", "dlg_1", "fromAgent", "agt_1", "toAgent", "agt_2", "permissions", List.of("p"));
        StreamEvent made = new StreamEvent(
                "7",
                EventType.DELEGATION_CREATED,
                AT,
                Map.of("delegation", delegation, "actor", Map.of("id", "usr_1")),
                Optional.of("agt_1"),
                Optional.of("usr_1"));
        Signal signal = SignalMapper.signals(made).getFirst();
        assertThat(signal.subject().id()).isEqualTo("agt_2");
        assertThat(signal.ownerUser()).hasValue("usr_1");
        assertThat(signal.members().get("claims").toString()).contains("dlg_1").contains("change=created");
    }

    @Test
    void aLockoutAndAResetAreRiscEventsAboutThePerson() {
        StreamEvent locked = new StreamEvent(
                "8",
                EventType.AUTH_LOCKED,
                AT,
                Map.of("user", Map.of("id", "usr_1")),
                Optional.empty(),
                Optional.of("usr_1"));
        Signal disabled = SignalMapper.signals(locked).getFirst();
        assertThat(disabled.type()).isEqualTo(SignalTypes.ACCOUNT_DISABLED);
        assertThat(disabled.subject().id()).isEqualTo("usr_1");
        StreamEvent reset = new StreamEvent(
                "9", EventType.AUTH_PASSWORD_RESET, AT, Map.of(), Optional.empty(), Optional.of("usr_1"));
        assertThat(SignalMapper.signals(reset).getFirst().type()).isEqualTo(SignalTypes.RECOVERY_ACTIVATED);
    }

    @Test
    void everyOtherEventIsNoSignalAndMayMapAgreesWithSignals() {
        for (EventType type : EventType.values()) {
            StreamEvent event = new StreamEvent(
                    "1",
                    type,
                    AT,
                    Map.of(
                            "delegation",
                            Map.of("toAgent", "agt_2"),
                            "changed",
                            List.of("permissions"),
                            "actor",
                            Map.of("id", "x")),
                    Optional.of("agt_1"),
                    Optional.of("usr_1"));
            assertThat(!SignalMapper.signals(event).isEmpty())
                    .as(type.wireName())
                    .isEqualTo(SignalMapper.mayMap(event.type()));
        }
        assertThat(Arrays.stream(EventType.values()).filter(SignalMapper::mayMap))
                .hasSize(8);
    }

    @Test
    void aJtiIsStablePerStreamAndSignalAndDiffersAcrossThem() {
        Signal signal = SignalMapper.signals(agentEvent(EventType.AGENT_REVOKED, Map.of()))
                .getFirst();
        assertThat(SecurityEventTokens.jti("ssf_a", signal)).isEqualTo(SecurityEventTokens.jti("ssf_a", signal));
        assertThat(SecurityEventTokens.jti("ssf_a", signal)).isNotEqualTo(SecurityEventTokens.jti("ssf_b", signal));
        StreamEvent later = agentEvent(EventType.AGENT_SUSPENDED, Map.of());
        Signal other = SignalMapper.signals(
                        new StreamEvent("43", later.type(), AT, later.data(), later.agentId(), later.userId()))
                .getFirst();
        assertThat(SecurityEventTokens.jti("ssf_a", signal)).isNotEqualTo(SecurityEventTokens.jti("ssf_a", other));
    }

    @Test
    void aReceiverNamesASubjectAsOpaqueOrAsTheIssuersSubject() {
        assertThat(SignalMapper.subjectKey(Map.of("format", "opaque", "id", "agt_1"), ISS))
                .hasValue("agt_1");
        assertThat(SignalMapper.subjectKey(Map.of("format", "iss_sub", "iss", ISS, "sub", "agt_1"), ISS))
                .hasValue("agt_1");
        assertThat(SignalMapper.subjectKey(Map.of("format", "iss_sub", "iss", "https://other", "sub", "agt_1"), ISS))
                .isEmpty();
        assertThat(SignalMapper.subjectKey(Map.of("format", "email", "email", "a@b.c"), ISS))
                .isEmpty();
        assertThat(SignalMapper.subjectKey(Map.of("format", "opaque", "id", 7), ISS))
                .isEmpty();
    }
}
