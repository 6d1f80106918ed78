package dev.warden.api.approvals;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.launcher.WardenPlatform;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.testing.AuditTopic;
import dev.warden.testing.Http;
import dev.warden.testing.SseClient;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Approval-required permissions through real HTTP (docs/approvals.md): the request a call makes, made once per
 * call; who may see and decide it; approve and deny; once and for a duration; the long poll, on a second instance
 * too; expiry; revocation ending requests; every step in the audit log and on the stream.
 */
class ApprovalsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static WardenPlatform second;
    static Http http;
    static Http other;
    static String admin;
    static String ann;
    static String bob;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        admin = warden.adminToken();
        ann = token("ann");
        bob = token("bob");
        second = warden.startAnother("b", b -> b.roles("api"));
        other = new Http(second.baseUri());
    }

    @AfterAll
    static void tearDown() {
        if (second != null) {
            second.close();
        }
    }

    static String token(String user) {
        Http.Response res = http.post("/auth/tokens", admin, "{\"name\":\"t\",\"userId\":\"" + user + "\"}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("token").asText();
    }

    /** An agent of ann's whose one permission needs approval with {@code rule}: its id and token. */
    static String[] agent(String rule) {
        Http.Response res = http.post("/agents", ann, """
                {"ownerId":"ann","name":"payer","type":"autonomous","permissions":[
                  {"resource":"mcp:pay:*","actions":["refund"],"constraints":{"requireApproval":%s}},
                  {"resource":"mcp:docs:*","actions":["read"]}]}""".formatted(rule));
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return new String[] {
            res.json().get("id").asText(), res.json().get("token").asText()
        };
    }

    static JsonNode ask(Http on, String[] agent, String arguments) {
        Http.Response res = on.post("/authorize", agent[1], """
                {"agentId":"%s","action":"refund","resource":"mcp:pay:order-7","arguments":%s}""".formatted(agent[0], arguments));
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json();
    }

    static AuditEntry entry(JsonNode decision) {
        String id = decision.get("auditId").asText();
        return AuditTopic.read(warden, e -> e.id().equals(id), 1).getFirst();
    }

    static JsonNode decide(String token, String approvalId, String verb, String body, int status) {
        Http.Response res = http.post("/approvals/" + approvalId + "/" + verb, token, body);
        assertThat(res.status()).as(res.body()).isEqualTo(status);
        return res.json();
    }

    @Test
    void aCallWaitsForItsOwnersApprovalWhichAllowsItOnce() {
        String[] agent = agent("{\"approvers\":\"owner\",\"validFor\":\"once\"}");
        Instant start = warden.clock().instant();

        JsonNode first = ask(http, agent, "{\"amount\":40,\"password\":\"hunter2\"}");
        assertThat(first.get("allowed").asBoolean()).isFalse();
        assertThat(first.get("reason").asText()).isEqualTo("APPROVAL_REQUIRED");
        String approvalId = first.get("approvalId").asText();
        assertThat(approvalId).startsWith("apr_");
        assertThat(entry(first).reasonDetail()).hasValue("approval " + approvalId + " requested");

        // Asking again is the same request, not a second one
        JsonNode again = ask(other, agent, "{\"password\":\"hunter2\",\"amount\":40}");
        assertThat(again.get("approvalId").asText()).isEqualTo(approvalId);
        assertThat(entry(again).reasonDetail()).hasValue("approval " + approvalId + " pending");
        // Unrelated permissions are not held up
        assertThat(http.post("/authorize", agent[1], """
                        {"agentId":"%s","action":"read","resource":"mcp:docs:a"}""".formatted(agent[0]))
                        .json()
                        .get("allowed")
                        .asBoolean())
                .isTrue();

        // Who sees it: the owner and the agent; nobody else learns it exists
        JsonNode seen = http.get("/approvals/" + approvalId, ann).json();
        assertThat(seen.get("status").asText()).isEqualTo("pending");
        assertThat(seen.get("arguments").get("password").asText()).isEqualTo("[REDACTED]");
        assertThat(seen.get("validFor").asText()).isEqualTo("once");
        assertThat(http.get("/approvals/" + approvalId, agent[1]).status()).isEqualTo(200);
        assertThat(http.get("/approvals/" + approvalId, bob).status()).isEqualTo(404);
        assertThat(http.get("/approvals/apr_nosuchrequest0000000000000", ann).status())
                .isEqualTo(404);
        assertThat(http.get("/approvals?status=pending", ann).json().findValuesAsText("id"))
                .contains(approvalId);
        assertThat(http.get("/approvals", bob).json().findValuesAsText("id")).doesNotContain(approvalId);

        // Who decides: never the agent itself, never a stranger
        assertThat(http.post("/approvals/" + approvalId + "/approve", agent[1], "{}")
                        .status())
                .isEqualTo(403);
        assertThat(http.post("/approvals/" + approvalId + "/approve", bob, "{}").status())
                .isEqualTo(404);
        JsonNode approved = decide(ann, approvalId, "approve", "{\"note\":\"refund ok\"}", 200);
        assertThat(approved.get("status").asText()).isEqualTo("approved");
        assertThat(approved.get("decidedBy").asText()).isNotEmpty();
        assertThat(approved.get("note").asText()).isEqualTo("refund ok");
        decide(ann, approvalId, "deny", "{}", 409);

        // The matching call is allowed once; the next one asks again
        JsonNode allowed = ask(other, agent, "{\"amount\":40,\"password\":\"hunter2\"}");
        assertThat(allowed.get("allowed").asBoolean()).as(allowed.toString()).isTrue();
        assertThat(entry(allowed).reasonDetail()).hasValue("allowed by approval " + approvalId);
        assertThat(http.get("/approvals/" + approvalId, ann)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("used");
        JsonNode next = ask(http, agent, "{\"amount\":40,\"password\":\"hunter2\"}");
        assertThat(next.get("reason").asText()).isEqualTo("APPROVAL_REQUIRED");
        assertThat(next.get("approvalId").asText()).isNotEqualTo(approvalId);

        // Every step is in the audit log: the decision of the approver with its note
        List<AuditEntry> decisions = AuditTopic.read(
                warden,
                e -> e.action().equals("admin.approval.approve") && e.resource().equals("approval:" + approvalId),
                1);
        assertThat(decisions.getFirst().parameters()).containsEntry("note", "refund ok");
        assertThat(decisions.getFirst().agentId()).isEqualTo(agent[0]);

        // and on the stream: requested, then approved
        try (SseClient sse = SseClient.connect(
                http.baseUri(),
                "/events/stream?types=approval.requested,approval.approved&since=" + start,
                Map.of("Authorization", "Bearer " + ann))) {
            List<String> seenTypes = new ArrayList<>();
            long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (seenTypes.size() < 2 && System.nanoTime() < until) {
                SseClient.Message m = sse.next(Duration.ofSeconds(1));
                if (m != null && m.event() != null && m.data().contains(approvalId)) {
                    seenTypes.add(m.event());
                }
            }
            assertThat(seenTypes).containsExactly("approval.requested", "approval.approved");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aDenialIsFinalAndTheNextCallAsksAgain() {
        String[] agent = agent("{}");
        String approvalId = ask(http, agent, "{\"amount\":1}").get("approvalId").asText();
        JsonNode denied = decide(ann, approvalId, "deny", "{\"note\":\"no\"}", 200);
        assertThat(denied.get("status").asText()).isEqualTo("denied");
        decide(ann, approvalId, "approve", "{}", 409);
        JsonNode next = ask(http, agent, "{\"amount\":1}");
        assertThat(next.get("reason").asText()).isEqualTo("APPROVAL_REQUIRED");
        assertThat(next.get("approvalId").asText()).isNotEqualTo(approvalId);
        assertThat(AuditTopic.read(warden, e -> e.resource().equals("approval:" + approvalId), 1)
                        .getFirst()
                        .action())
                .isEqualTo("admin.approval.deny");
    }

    @Test
    void anApprovalForADurationAllowsTheSameCallUntilItExpires() {
        String[] agent = agent("{\"validFor\":\"PT1H\"}");
        String approvalId = ask(http, agent, "{\"amount\":5}").get("approvalId").asText();
        decide(admin, approvalId, "approve", "", 200);
        assertThat(ask(http, agent, "{\"amount\":5}").get("allowed").asBoolean())
                .isTrue();
        assertThat(ask(other, agent, "{\"amount\":5}").get("allowed").asBoolean())
                .isTrue();
        // other arguments are another call
        assertThat(ask(http, agent, "{\"amount\":6}").get("reason").asText()).isEqualTo("APPROVAL_REQUIRED");
        warden.clock().advance(Duration.ofMinutes(61));
        JsonNode later = ask(http, agent, "{\"amount\":5}");
        assertThat(later.get("reason").asText()).isEqualTo("APPROVAL_REQUIRED");
        assertThat(http.get("/approvals/" + approvalId, ann)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("expired");
    }

    @Test
    void aPendingRequestExpires() {
        String[] agent = agent("{}");
        String approvalId = ask(http, agent, "{\"n\":1}").get("approvalId").asText();
        warden.clock().advance(ApprovalService.PENDING_FOR.plusMinutes(1));
        assertThat(http.get("/approvals/" + approvalId, ann)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("expired");
        decide(ann, approvalId, "approve", "{}", 409);
        assertThat(ask(http, agent, "{\"n\":1}").get("approvalId").asText()).isNotEqualTo(approvalId);
    }

    @Test
    void theAgentWaitsWithALongPollThatTheDecisionOnAnotherInstanceEnds() throws Exception {
        String[] agent = agent("{}");
        String approvalId = ask(http, agent, "{\"n\":2}").get("approvalId").asText();
        long started = System.nanoTime();
        CompletableFuture<Http.Response> poll =
                CompletableFuture.supplyAsync(() -> other.get("/approvals/" + approvalId + "?wait=20s", agent[1]));
        Thread.sleep(700);
        assertThat(poll).isNotDone();
        decide(ann, approvalId, "approve", "{}", 200);
        Http.Response answer = poll.get();
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.json().get("status").asText()).isEqualTo("approved");
        assertThat(tookMs)
                .as("answered at the decision, not at the end of the wait")
                .isLessThan(15_000);
        // A wait on a request that is not pending answers at once; a bad wait is a 400 naming it
        assertThat(other.get("/approvals/" + approvalId + "?wait=20s", agent[1])
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("approved");
        Http.Response bad = http.get("/approvals/" + approvalId + "?wait=1h", ann);
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("wait");
    }

    @Test
    void revokingTheAgentOrTheDelegationEndsPendingAndGrantedApprovals() {
        String[] agent = agent("{\"validFor\":\"PT1H\"}");
        String pendingId = ask(http, agent, "{\"n\":3}").get("approvalId").asText();
        String grantedId = ask(http, agent, "{\"n\":4}").get("approvalId").asText();
        decide(ann, grantedId, "approve", "{}", 200);
        assertThat(http.delete("/agents/" + agent[0], ann).status()).isEqualTo(204);
        assertThat(other.get("/approvals/" + pendingId, ann)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("cancelled");
        assertThat(other.get("/approvals/" + grantedId, ann)
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("cancelled");
        decide(ann, pendingId, "approve", "{}", 409);

        // Through a delegation: the request records it, and revoking it ends the request on every instance
        Http.Response src = http.post("/agents", ann, """
                {"ownerId":"ann","name":"src","type":"autonomous","permissions":[
                  {"resource":"mcp:pay:*","actions":["refund"],"constraints":{"requireApproval":{"validFor":"PT1H"}}}]}""");
        Http.Response dst = http.post("/agents", ann, """
                {"ownerId":"ann","name":"dst","type":"autonomous","permissions":[]}""");
        String[] target = {
            dst.json().get("id").asText(), dst.json().get("token").asText()
        };
        Http.Response delegation = http.post(
                "/delegations", ann, """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"mcp:pay:*","actions":["refund"]}]}""".formatted(src.json().get("id").asText(), target[0]));
        assertThat(delegation.status()).as(delegation.body()).isEqualTo(201);
        String viaId = ask(http, target, "{\"n\":5}").get("approvalId").asText();
        JsonNode via = http.get("/approvals/" + viaId, ann).json();
        assertThat(via.get("delegations").get(0).asText())
                .isEqualTo(delegation.json().get("id").asText());
        decide(ann, viaId, "approve", "{}", 200);
        assertThat(ask(http, target, "{\"n\":5}").get("allowed").asBoolean()).isTrue();
        assertThat(http.delete("/delegations/" + delegation.json().get("id").asText(), ann)
                        .status())
                .isEqualTo(204);
        assertThat(other.get("/approvals/" + viaId, ann).json().get("status").asText())
                .isEqualTo("cancelled");
        assertThat(ask(other, target, "{\"n\":5}").get("reason").asText()).isEqualTo("NO_MATCHING_PERMISSION");
    }

    @Test
    void aBadRuleIsA400NamingTheField() {
        Http.Response res = http.post("/agents", ann, """
                {"ownerId":"ann","name":"x","type":"autonomous","permissions":[
                  {"resource":"mcp:*","actions":["a"],"constraints":{"requireApproval":{"approvers":"anyone","validFor":"P90D","x":1}}},
                  {"resource":"mcp:*","actions":["b"],"constraints":{"requireApproval":true}}]}""");
        assertThat(res.status()).isEqualTo(400);
        assertThat(res.body())
                .contains("permissions[0].constraints.requireApproval.approvers")
                .contains("permissions[0].constraints.requireApproval.validFor")
                .contains("permissions[0].constraints.requireApproval.x")
                .contains("permissions[1].constraints.requireApproval");
        JsonNode stored = http.post("/agents", ann, """
                        {"ownerId":"ann","name":"y","type":"autonomous","permissions":[
                          {"resource":"mcp:*","actions":["a"],"constraints":{"requireApproval":{}}}]}""")
                .json()
                .get("permissions")
                .get(0)
                .get("constraints")
                .get("requireApproval");
        assertThat(stored.toString()).isEqualTo("{\"approvers\":\"owner\",\"validFor\":\"once\"}");
    }
}
