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
        for (String kind : List.of("subject", "resource", "action")) {
            assertThat(res.json().get("search_" + kind + "_endpoint").asText())
                    .isEqualTo(base + "/access/v1/search/" + kind);
        }
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
        // no agent is known as user:alice (metadata authzen.subject): not found, like an agent one may not see
        assertThat(items.get(0).get("context").get("error").get("status").asInt())
                .isEqualTo(404);
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
        assertThat(batch.body()).contains("options.evaluations_semantic");
        assertThat(http.post("/access/v1/evaluations", admin, "{\"evaluations\":{}}")
                        .body())
                .contains("\"evaluations\"");
        // Inside a valid batch, an item missing a field fails alone (the certification scenario's execute_all case)
        JsonNode items = post("/access/v1/evaluations", """
                {"subject":%s,"action":{"name":"read"},"options":{"evaluations_semantic":"execute_all"},
                 "evaluations":[{"resource":{"type":"record","id":"record-1"}},{},{"resource":"record-1"}]}""".formatted(subject()));
        assertThat(decisions(items)).containsExactly(true, false, false);
        assertThat(items.get("evaluations")
                        .get(1)
                        .get("context")
                        .get("error")
                        .get("message")
                        .asText())
                .contains("evaluations[1].resource");
        assertThat(items.get("evaluations")
                        .get(2)
                        .get("context")
                        .get("error")
                        .get("status")
                        .asInt())
                .isEqualTo(400);
        assertThat(http.post("/access/v1/evaluations", admin, """
                        {"evaluations":[],"options":{"warden_decision_context":"some"}}""").body()).contains("options.warden_decision_context");
        assertThat(http.post("/access/v1/evaluation", null, "{}").status()).isEqualTo(401);
    }

    @Test
    void aSubjectOfAnotherTypeIsTheAgentKnownByThatName() {
        String alice = create(
                "zed",
                "alice",
                "{\"authzen.subject\":\"user:alice-" + agent + "\"}",
                "{\"resource\":\"doc:*\",\"actions\":[\"read\"]}");
        String user = "{\"type\":\"user\",\"id\":\"alice-" + agent + "\"}";
        JsonNode allowed = evaluate(admin, """
                {"subject":%s,"action":{"name":"read"},"resource":{"type":"doc","id":"1"}}""".formatted(user));
        assertThat(allowed.get("decision").asBoolean()).isTrue();
        assertThat(entry(allowed).agentId()).isEqualTo(alice);

        // Two agents with one name: neither is guessed
        create(
                "zed",
                "twin 1",
                "{\"authzen.subject\":\"user:twin-" + agent + "\"}",
                "{\"resource\":\"doc:*\",\"actions\":[\"read\"]}");
        create(
                "zed",
                "twin 2",
                "{\"authzen.subject\":\"user:twin-" + agent + "\"}",
                "{\"resource\":\"doc:*\",\"actions\":[\"read\"]}");
        JsonNode twin = evaluate(admin, """
                {"subject":{"type":"user","id":"twin-%s"},"action":{"name":"read"},"resource":{"type":"doc","id":"1"}}""".formatted(agent));
        assertThat(twin.get("decision").asBoolean()).isFalse();
        assertThat(twin.get("context").get("error").get("status").asInt()).isEqualTo(409);

        // A person sees only the names of their own agents: another owner's is the same 404 as an unknown one
        String person = signUpAndIn("az" + agent.substring(4, 14).toLowerCase(java.util.Locale.ROOT));
        JsonNode hidden = evaluate(person, """
                {"subject":%s,"action":{"name":"read"},"resource":{"type":"doc","id":"1"}}""".formatted(user));
        assertThat(hidden.get("decision").asBoolean()).isFalse();
        assertThat(hidden.get("context").get("error").get("status").asInt()).isEqualTo(404);
        assertThat(hidden.toString()).doesNotContain(alice);
    }

    @Test
    void searchesFindTheSubjectsResourcesAndActionsThatWouldBeAllowed() {
        String tag = agent.substring(4, 12);
        String ann = create(
                "searcher", "ann", "{\"authzen.subject\":\"member:ann-" + tag + "\",\"role\":\"lead\"}", """
                {"resource":"book:*","actions":["view"]},
                {"resource":"book:b1-%s","actions":["edit","delete"]},
                {"resource":"book:b3-%s","actions":["edit"],"constraints":{"when":"context.subject.role == 'lead'"}}""".formatted(
                                tag, tag));
        create("searcher", "ben", "{\"authzen.subject\":\"member:ben-" + tag + "\"}", """
                {"resource":"book:b2-%s","actions":["view","edit"]},
                {"resource":"book:b3-%s","actions":["approve"],"constraints":{"requireApproval":{"approvers":"owner"}}}""".formatted(tag, tag));
        create("searcher", "cat", "{}", "{\"resource\":\"book:b1-" + tag + "\",\"actions\":[\"view\"]}");

        // Subjects: those named as members, allowed to view b1 (cat has no subject name of that type)
        JsonNode subjects = post("/access/v1/search/subject", """
                {"subject":{"type":"member","id":"ignored"},"action":{"name":"view"},"resource":{"type":"book","id":"b1-%s"}}""".formatted(tag));
        assertThat(subjects.get("results").toString()).isEqualTo("[{\"type\":\"member\",\"id\":\"ann-" + tag + "\"}]");
        assertThat(subjects.get("page").get("next_token").asText()).isEmpty();
        // Resources: the concrete books Warden knows (named in any visible permission), that ann may view
        JsonNode books = post("/access/v1/search/resource", """
                {"subject":{"type":"member","id":"ann-%s"},"action":{"name":"view"},"resource":{"type":"book"}}""".formatted(tag));
        assertThat(books.get("results").findValuesAsText("id")).containsExactly("b1-" + tag, "b2-" + tag, "b3-" + tag);
        // A condition reads the search's subject properties; an approval-required permission does not count
        JsonNode editable = post("/access/v1/search/resource", """
                {"subject":{"type":"member","id":"ann-%s"},"action":{"name":"edit"},"resource":{"type":"book"}}""".formatted(tag));
        assertThat(editable.get("results").findValuesAsText("id")).containsExactly("b1-" + tag);
        JsonNode asLead = post("/access/v1/search/resource", """
                {"subject":{"type":"member","id":"ann-%s","properties":{"role":"lead"}},"action":{"name":"edit"},
                 "resource":{"type":"book"}}""".formatted(tag));
        assertThat(asLead.get("results").findValuesAsText("id")).containsExactly("b1-" + tag, "b3-" + tag);
        JsonNode actions = post("/access/v1/search/action", """
                {"subject":{"type":"member","id":"ann-%s"},"resource":{"type":"book","id":"b1-%s"}}""".formatted(tag, tag));
        assertThat(actions.get("results").toString())
                .isEqualTo("[{\"name\":\"delete\"},{\"name\":\"edit\"},{\"name\":\"view\"}]");
        JsonNode benActions = post("/access/v1/search/action", """
                {"subject":{"type":"member","id":"ben-%s"},"resource":{"type":"book","id":"b3-%s"}}""".formatted(tag, tag));
        assertThat(benActions.get("results")).isEmpty();
        // Searches decide nothing: no audit entry for ann
        assertThat(http.get("/audit?agentId=" + ann, admin).json()).isEmpty();

        // Pages: a token is good for its own search only
        String paged = """
                {"subject":{"type":"member","id":"ann-%s"},"action":{"name":"view"},"resource":{"type":"book"},
                 "page":{%s}}""";
        JsonNode first = post("/access/v1/search/resource", paged.formatted(tag, "\"limit\":2"));
        assertThat(first.get("results").findValuesAsText("id")).containsExactly("b1-" + tag, "b2-" + tag);
        assertThat(first.get("page").get("total").asInt()).isEqualTo(3);
        String token = first.get("page").get("next_token").asText();
        assertThat(token).isNotEmpty();
        JsonNode second =
                post("/access/v1/search/resource", paged.formatted(tag, "\"token\":\"" + token + "\",\"limit\":2"));
        assertThat(second.get("results").findValuesAsText("id")).containsExactly("b3-" + tag);
        assertThat(second.get("page").get("next_token").asText()).isEmpty();
        Http.Response changed = http.post("/access/v1/search/resource", admin, """
                {"subject":{"type":"member","id":"ann-%s"},"action":{"name":"edit"},"resource":{"type":"book"},
                 "page":{"token":"%s"}}""".formatted(tag, token));
        assertThat(changed.status()).isEqualTo(400);
        assertThat(changed.body()).contains("page.token");

        // Unknown subjects and types are empty results; a missing input id is a 400 naming it
        assertThat(post("/access/v1/search/action", """
                {"subject":{"type":"member","id":"nobody"},"resource":{"type":"book","id":"b1-%s"}}""".formatted(tag)).get("results"))
                .isEmpty();
        assertThat(post("/access/v1/search/subject", """
                {"subject":{"type":"spaceship"},"action":{"name":"view"},"resource":{"type":"book","id":"b1"}}""").get("results")).isEmpty();
        Http.Response noId = http.post("/access/v1/search/subject", admin, """
                {"subject":{"type":"member"},"action":{"name":"view"},"resource":{"type":"book"}}""");
        assertThat(noId.status()).isEqualTo(400);
        assertThat(noId.body()).contains("resource.id");
        Http.Response noAction = http.post("/access/v1/search/resource", admin, """
                {"subject":{"type":"member","id":"ann"},"resource":{"type":"book"}}""");
        assertThat(noAction.status()).isEqualTo(400);
        assertThat(noAction.body()).contains("action");
        assertThat(http.post("/access/v1/search/resource", admin, """
                        {"subject":{"type":"member","id":"ann"},"action":{"name":"view"},"resource":{"type":"book"},
                         "page":{"limit":0}}""").body()).contains("page.limit");
    }

    /** Creates an agent of {@code owner} with {@code metadata} and the permissions (JSON objects); its id. */
    static String create(String owner, String name, String metadata, String permissions) {
        Http.Response res = http.post("/agents", admin, """
                {"ownerId":"%s","name":"%s","type":"autonomous","metadata":%s,"permissions":[%s]}""".formatted(owner, name, metadata, permissions));
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    /** A new person's session token. */
    static String signUpAndIn(String username) {
        String credentials = "{\"username\":\"" + username + "\",\"password\":\"correct horse battery staple\"}";
        Http.Response up = http.post("/auth/sign-up", null, credentials);
        assertThat(up.status()).as(up.body()).isEqualTo(201);
        Http.Response in = http.post("/auth/sign-in", null, credentials);
        assertThat(in.status()).as(in.body()).isEqualTo(200);
        return in.json().get("token").asText();
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
