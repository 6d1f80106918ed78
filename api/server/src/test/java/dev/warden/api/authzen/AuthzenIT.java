package dev.warden.api.authzen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.testing.AuditTopic;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The AuthZEN Authorization API 1.0 through real HTTP (docs/authzen.md): the metadata document, one evaluation and
 * batches with each semantic and default values, each evaluation a decision audited exactly once, properties and
 * context read by conditions, errors per evaluation, and {@code X-Request-ID} echoed.
 */
class AuthzenIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static Http http;
    static String admin;
    static String agent;
    static String agentToken;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        admin = warden.adminToken();
        Http.Response res = http.post("/agents", admin, """
                {"ownerId":"zed","name":"reader","type":"autonomous","permissions":[
                  {"resource":"record:*","actions":["read"]},
                  {"resource":"record:*","actions":["write"],
                   "constraints":{"when":"resource.properties.status != 'archived' || context.subject.role == 'admin'"}},
                  {"resource":"record:*","actions":["delete"],"constraints":{"when":"context.action.soft == true"}}]}""");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        agent = res.json().get("id").asText();
        agentToken = res.json().get("token").asText();
    }

    static String subject() {
        return "{\"type\":\"agent\",\"id\":\"" + agent + "\"}";
    }

    static JsonNode evaluate(String token, String body) {
        Http.Response res = http.post("/access/v1/evaluation", token, body);
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json();
    }

    static AuditEntry entry(JsonNode decision) {
        String id = decision.get("context").get("auditId").asText();
        return AuditTopic.read(warden, e -> e.id().equals(id), 1).getFirst();
    }

    @Test
    void theMetadataNamesTheEndpoints() {
        Http.Response res = http.get("/.well-known/authzen-configuration", null);
        assertThat(res.status()).isEqualTo(200);
        String base = res.json().get("policy_decision_point").asText();
        assertThat(base).doesNotEndWith("/");
        assertThat(res.json().get("access_evaluation_endpoint").asText()).isEqualTo(base + "/access/v1/evaluation");
        assertThat(res.json().get("access_evaluations_endpoint").asText()).isEqualTo(base + "/access/v1/evaluations");
        assertThat(res.json().has("search_subject_endpoint")).isFalse();
    }

    @Test
    void anEvaluationIsADecisionAuditedOnceWithItsRequestIdEchoed() {
        Http.Response res = http.send(http.builder("/access/v1/evaluation", agentToken)
                .header("Content-Type", "application/json")
                .header("X-Request-ID", "bfe9eb29-ab87-4ca3-be83-a1d5d8305716")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("""
                        {"subject":%s,"action":{"name":"read"},"resource":{"type":"record","id":"record-1"},
                         "context":{"time":"1985-10-26T01:22-07:00"},"unknownField":{"ignored":true}}""".formatted(subject()))));
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        assertThat(res.header("X-Request-ID")).hasValue("bfe9eb29-ab87-4ca3-be83-a1d5d8305716");
        JsonNode decision = res.json();
        assertThat(decision.get("decision").asBoolean()).isTrue();
        AuditEntry entry = entry(decision);
        assertThat(entry.agentId()).isEqualTo(agent);
        assertThat(entry.action()).isEqualTo("read");
        assertThat(entry.resource()).isEqualTo("record:record-1");
        assertThat(entry.result()).isEqualTo(AuditResult.ALLOWED);
        assertThat(entry.parameters().get("context").toString()).contains("1985-10-26");

        JsonNode denied = evaluate(agentToken, """
                {"subject":%s,"action":{"name":"purge"},"resource":{"type":"record","id":"record-1"}}""".formatted(subject()));
        assertThat(denied.get("decision").asBoolean()).isFalse();
        assertThat(denied.get("context").get("reason").asText()).isEqualTo("NO_MATCHING_PERMISSION");
    }

    @Test
    void propertiesAndContextAreWhatConditionsRead() {
        String archived = "{\"type\":\"record\",\"id\":\"record-2\",\"properties\":{\"status\":\"archived\"}}";
        assertThat(evaluate(admin, """
                        {"subject":%s,"action":{"name":"write"},"resource":%s}""".formatted(subject(), archived))
                        .get("decision")
                        .asBoolean())
                .isFalse();
        String adminSubject = "{\"type\":\"agent\",\"id\":\"" + agent + "\",\"properties\":{\"role\":\"admin\"}}";
        assertThat(evaluate(admin, """
                        {"subject":%s,"action":{"name":"write"},"resource":%s}""".formatted(adminSubject, archived))
                        .get("decision")
                        .asBoolean())
                .isTrue();
        String record1 = "{\"type\":\"record\",\"id\":\"record-1\"}";
        assertThat(evaluate(admin, """
                        {"subject":%s,"action":{"name":"delete","properties":{"soft":true}},"resource":%s}""".formatted(subject(), record1))
                        .get("decision")
                        .asBoolean())
                .isTrue();
        JsonNode hard = evaluate(admin, """
                {"subject":%s,"action":{"name":"delete","properties":{"soft":false}},"resource":%s}""".formatted(subject(), record1));
        assertThat(hard.get("decision").asBoolean()).isFalse();
        assertThat(hard.get("context").get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
    }

    @Test
    void aBatchTakesDefaultsAndEachSemantic() {
        String body = """
                {"subject":%s,"action":{"name":"read"},%s"evaluations":[
                  {"resource":{"type":"record","id":"a-%s"}},
                  {"resource":{"type":"record","id":"b-%s"},"action":{"name":"purge"}},
                  {"resource":{"type":"record","id":"c-%s"}}]}""";
        JsonNode all = post(
                "/access/v1/evaluations",
                body.formatted(subject(), "\"options\":{\"warden_decision_context\":\"full\"},", "all", "all", "all"));
        assertThat(decisions(all)).containsExactly(true, false, true);
        List<String> auditIds = all.get("evaluations").findValuesAsText("auditId");
        assertThat(AuditTopic.read(warden, e -> auditIds.contains(e.id()), 3)).hasSize(3);
        assertThat(all.get("evaluations").get(1).get("context").get("reason").asText())
                .isEqualTo("NO_MATCHING_PERMISSION");
        // By default a batch's items are bare decisions, as interop harnesses compare them
        JsonNode bare = post("/access/v1/evaluations", body.formatted(subject(), "", "m", "m", "m"));
        assertThat(bare.get("evaluations").toString())
                .isEqualTo("[{\"decision\":true},{\"decision\":false},{\"decision\":true}]");

        JsonNode denyFirst = post(
                "/access/v1/evaluations",
                body.formatted(
                        subject(), "\"options\":{\"evaluations_semantic\":\"deny_on_first_deny\"},", "d", "d", "d"));
        assertThat(decisions(denyFirst)).containsExactly(true, false);
        JsonNode permitFirst = post(
                "/access/v1/evaluations",
                body.formatted(
                        subject(),
                        "\"options\":{\"evaluations_semantic\":\"permit_on_first_permit\"},",
                        "p",
                        "p",
                        "p"));
        assertThat(decisions(permitFirst)).containsExactly(true);
        // What a short-circuit leaves out is not decided at all: no audit entry
        List<String> audited = http.get("/audit?agentId=" + agent + "&limit=1000", admin)
                .json()
                .findValuesAsText("resource");
        assertThat(audited).contains("record:a-all", "record:c-all", "record:b-d", "record:a-p");
        assertThat(audited).doesNotContain("record:c-d", "record:b-p", "record:c-p");

        // Without evaluations, the batch endpoint answers as the single one
        JsonNode single = post("/access/v1/evaluations", """
                {"subject":%s,"action":{"name":"read"},"resource":{"type":"record","id":"x"}}""".formatted(subject()));
        assertThat(single.get("decision").asBoolean()).isTrue();
        assertThat(single.has("evaluations")).isFalse();
    }

    @Test
    void anEvaluationThatCannotBeDecidedIsADenialWithAnErrorAndTheOthersGoOn() {
        JsonNode res = post("/access/v1/evaluations", """
                {"action":{"name":"read"},"options":{"warden_decision_context":"full"},"evaluations":[
                  {"subject":{"type":"user","id":"alice"},"resource":{"type":"record","id":"a"}},
                  {"subject":{"type":"agent","id":"agt_nosuchagent00000000000000"},"resource":{"type":"record","id":"a"}},
                  {"subject":%s,"resource":{"type":"record","id":"*"}},
                  {"subject":%s,"resource":{"type":"record","id":"a"}}]}""".formatted(subject(), subject()));
        JsonNode items = res.get("evaluations");
        assertThat(items).hasSize(4);
        assertThat(items.get(0).get("context").get("error").get("status").asInt())
                .isEqualTo(400);
        assertThat(items.get(2).get("context").get("error").get("status").asInt())
                .isEqualTo(400);
        assertThat(items.get(3).get("decision").asBoolean()).isTrue();
        // an unknown agent is the administrator's denial; the agent itself may only ask about itself
        assertThat(items.get(1).get("decision").asBoolean()).isFalse();
        Http.Response other = http.post("/access/v1/evaluation", agentToken, """
                {"subject":{"type":"agent","id":"agt_someoneelse000000000000000"},"action":{"name":"read"},
                 "resource":{"type":"record","id":"a"}}""");
        assertThat(other.status()).isEqualTo(200);
        assertThat(other.json().get("decision").asBoolean()).isFalse();
        assertThat(other.json().get("context").get("error").get("status").asInt())
                .isEqualTo(404);
    }

    @Test
    void aMissingRequiredFieldIsA400NamingIt() {
        Http.Response res = http.post("/access/v1/evaluation", admin, """
                {"subject":{"type":"agent"},"action":{},"resource":{"id":"x"}}""");
        assertThat(res.status()).isEqualTo(400);
        assertThat(res.body()).contains("subject.id").contains("action.name").contains("resource.type");
        Http.Response batch = http.post("/access/v1/evaluations", admin, """
                {"evaluations":[{"subject":{"type":"agent","id":"x"}}],"options":{"evaluations_semantic":"sometimes"}}""");
        assertThat(batch.status()).isEqualTo(400);
        assertThat(batch.body())
                .contains("evaluations[0].action")
                .contains("evaluations[0].resource")
                .contains("options.evaluations_semantic");
        assertThat(http.post("/access/v1/evaluations", admin, """
                        {"evaluations":[],"options":{"warden_decision_context":"some"}}""").body()).contains("options.warden_decision_context");
        assertThat(http.post("/access/v1/evaluation", null, "{}").status()).isEqualTo(401);
    }

    static JsonNode post(String path, String body) {
        Http.Response res = http.post(path, admin, body);
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json();
    }

    static List<Boolean> decisions(JsonNode batch) {
        List<Boolean> out = new java.util.ArrayList<>();
        batch.get("evaluations").forEach(e -> out.add(e.get("decision").asBoolean()));
        return out;
    }
}
