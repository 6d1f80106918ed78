package dev.warden.api.delegations;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Delegation chains: subset rules, depth, cycles, expiry caps, cascading revocation, quotas along chains. */
class DelegationsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static Http http;
    static String admin;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        admin = warden.adminToken();
    }

    static String agent(String permissions) {
        Http.Response res = http.post(
                "/agents",
                admin,
                "{\"ownerId\":\"pat\",\"name\":\"a\",\"type\":\"autonomous\"," + "\"permissions\":" + permissions
                        + "}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    static Http.Response delegate(String from, String to, String permissions, String extra) {
        return http.post(
                "/delegations",
                admin,
                "{\"fromAgent\":\"" + from + "\",\"toAgent\":\"" + to + "\",\"permissions\":" + permissions + extra
                        + "}");
    }

    static String delegated(String from, String to, String permissions, String extra) {
        Http.Response res = delegate(from, to, permissions, extra);
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    static boolean allowed(String agent, String action, String resource) {
        Http.Response res = http.post(
                "/authorize",
                admin,
                "{\"agentId\":\"" + agent + "\",\"action\":\"" + action + "\",\"resource\":\"" + resource + "\"}");
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json().get("allowed").asBoolean();
    }

    static final String GITHUB_ALL = "[{\"resource\":\"mcp:github:*\",\"actions\":[\"read\",\"write\"]}]";
    static final String ISSUES_READ = "[{\"resource\":\"mcp:github:issues:*\",\"actions\":[\"read\"]}]";

    @Test
    void aDelegatedSubsetIsEffectiveForTheTargetAndNothingMore() {
        String a = agent(GITHUB_ALL);
        String b = agent("[]");
        assertThat(allowed(b, "read", "mcp:github:issues:1")).isFalse();

        Http.Response res = delegate(a, b, ISSUES_READ, "");
        assertThat(res.status()).isEqualTo(201);
        assertThat(res.json().get("depth").asInt()).isEqualTo(1);
        assertThat(allowed(b, "read", "mcp:github:issues:1")).isTrue();
        assertThat(allowed(b, "write", "mcp:github:issues:1")).isFalse();
        assertThat(allowed(b, "read", "mcp:github:pulls:1")).isFalse();
    }

    @Test
    void aDecisionThroughAChainNamesEveryLinkInItsAuditEntry() throws Exception {
        String a = agent(GITHUB_ALL);
        String b = agent("[]");
        String c = agent("[]");
        String ab = delegated(a, b, ISSUES_READ, "");
        String bc = delegated(b, c, ISSUES_READ, "");
        String own = agent(ISSUES_READ);
        String through = audited(c, "mcp:github:issues:7");
        String direct = audited(own, "mcp:github:issues:7");
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(20).toNanos();
        com.fasterxml.jackson.databind.JsonNode entry = null;
        while (System.nanoTime() < deadline) {
            Http.Response read = http.get("/audit?agentId=" + c, admin);
            if (read.json().size() > 0) {
                entry = read.json().get(0);
                break;
            }
            Thread.sleep(100);
        }
        assertThat(entry).as("the decision reached the audit log").isNotNull();
        assertThat(entry.get("id").asText()).isEqualTo(through);
        assertThat(entry.get("delegationChain").toString())
                .as("nearest first: the agent's own link, then its source's")
                .isEqualTo("[\"" + bc + "\",\"" + ab + "\"]");
        Http.Response ownEntries = http.get("/audit?agentId=" + own, admin);
        for (int i = 0; i < 200 && ownEntries.json().size() == 0; i++) {
            Thread.sleep(100);
            ownEntries = http.get("/audit?agentId=" + own, admin);
        }
        assertThat(ownEntries.json().get(0).get("id").asText()).isEqualTo(direct);
        assertThat(ownEntries.json().get(0).has("delegationChain"))
                .as("the agent's own permission: no chain")
                .isFalse();
    }

    /** A read of {@code resource} by {@code agent}, allowed; its audit id. */
    static String audited(String agent, String resource) {
        Http.Response res = http.post(
                "/authorize",
                admin,
                "{\"agentId\":\"" + agent + "\",\"action\":\"read\",\"resource\":\"" + resource + "\"}");
        assertThat(res.json().get("allowed").asBoolean()).as(res.body()).isTrue();
        return res.json().get("auditId").asText();
    }

    @Test
    void delegatingMoreThanTheSourceHoldsIsRefused() {
        String a = agent(ISSUES_READ);
        String b = agent("[]");
        Http.Response wider = delegate(a, b, GITHUB_ALL, "");
        assertThat(wider.status()).isEqualTo(403);
        assertThat(wider.json().get("code").asText()).isEqualTo("permission_not_held");
        assertThat(wider.json().get("errors").findValuesAsText("field")).containsExactly("permissions[0]");
        Http.Response action = delegate(a, b, "[{\"resource\":\"mcp:github:issues:1\",\"actions\":[\"write\"]}]", "");
        assertThat(action.json().get("code").asText()).isEqualTo("permission_not_held");
        assertThat(http.get("/delegations?fromAgent=" + a, admin).json().size()).isZero();
    }

    @Test
    void depthIsLimitedByTheSmallestMaxDepthAlongTheChain() {
        String a = agent(GITHUB_ALL);
        String b = agent("[]");
        String c = agent("[]");
        String d = agent("[]");
        delegated(a, b, ISSUES_READ, ",\"maxDepth\":2");
        Http.Response second = delegate(b, c, ISSUES_READ, ",\"maxDepth\":5");
        assertThat(second.status()).isEqualTo(201);
        assertThat(second.json().get("depth").asInt()).isEqualTo(2);
        assertThat(second.json().get("maxDepth").asInt()).isEqualTo(2);
        Http.Response third = delegate(c, d, ISSUES_READ, "");
        assertThat(third.status()).isEqualTo(409);
        assertThat(third.json().get("code").asText()).isEqualTo("chain_depth_exceeded");
        assertThat(allowed(c, "read", "mcp:github:issues:7")).isTrue();
    }

    @Test
    void selfDelegationCyclesAndInactiveAgentsAreRefusedWithTheirCodes() {
        String a = agent(GITHUB_ALL);
        String b = agent(GITHUB_ALL);
        assertThat(delegate(a, a, ISSUES_READ, "").json().get("code").asText()).isEqualTo("self_delegation");
        delegated(a, b, ISSUES_READ, "");
        assertThat(delegate(b, a, ISSUES_READ, "").json().get("code").asText()).isEqualTo("delegation_cycle");
        String suspended = agent("[]");
        http.post("/agents/" + suspended + "/suspend", admin);
        Http.Response inactive = delegate(a, suspended, ISSUES_READ, "");
        assertThat(inactive.status()).isEqualTo(409);
        assertThat(inactive.json().get("code").asText()).isEqualTo("agent_inactive");
        assertThat(delegate(a, "agt_nobody", ISSUES_READ, "").json().get("code").asText())
                .isEqualTo("agent_not_found");
        assertThat(delegate(a, b, "[{\"resource\":\"mcp::x\",\"actions\":[\"read\"]}]", "")
                        .status())
                .isEqualTo(400);
    }

    @Test
    void aChildExpiryIsCappedAtItsParents() {
        String a = agent(GITHUB_ALL);
        String b = agent("[]");
        String c = agent("[]");
        String parentExpiry = warden.clock()
                .instant()
                .plusSeconds(3600)
                .truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
                .toString();
        delegated(a, b, ISSUES_READ, ",\"expiresAt\":\"" + parentExpiry + "\"");
        Http.Response child = delegate(b, c, ISSUES_READ, ",\"expiresAt\":\"2099-01-01T00:00:00Z\"");
        assertThat(child.status()).isEqualTo(201);
        assertThat(java.time.Instant.parse(child.json().get("expiresAt").asText()))
                .isEqualTo(java.time.Instant.parse(parentExpiry));
    }

    @Test
    void revokingADelegationCutsEveryChainDerivedFromItAtOnceAndKeepsTheRecord() {
        String a = agent(GITHUB_ALL);
        String b = agent("[]");
        String c = agent("[]");
        String ab = delegated(a, b, ISSUES_READ, "");
        String bc = delegated(b, c, ISSUES_READ, "");
        assertThat(ids(http.get("/delegations?toAgent=" + c, admin))).containsExactly(bc);
        assertThat(allowed(c, "read", "mcp:github:issues:1")).isTrue();

        assertThat(http.delete("/delegations/" + ab, admin).status()).isEqualTo(204);

        assertThat(allowed(c, "read", "mcp:github:issues:1")).isFalse();
        assertThat(allowed(b, "read", "mcp:github:issues:1")).isFalse();
        assertThat(ids(http.get("/delegations?fromAgent=" + b, admin))).isEmpty();
        assertThat(ids(http.get("/delegations?fromAgent=" + a, admin))).isEmpty();
        assertThat(http.delete("/delegations/" + ab, admin).status()).isEqualTo(204);
        assertThat(http.delete("/delegations/dlg_unknown", admin)
                        .json()
                        .get("code")
                        .asText())
                .isEqualTo("delegation_not_found");
    }

    @Test
    void revokingOrSuspendingTheSourceAgentCutsItsChains() {
        String a = agent(GITHUB_ALL);
        String b = agent("[]");
        String c = agent("[]");
        delegated(a, b, ISSUES_READ, "");
        delegated(b, c, ISSUES_READ, "");
        http.post("/agents/" + a + "/suspend", admin);
        assertThat(allowed(c, "read", "mcp:github:issues:1")).isFalse();
        http.post("/agents/" + a + "/resume", admin);
        assertThat(allowed(c, "read", "mcp:github:issues:1")).isTrue();

        http.delete("/agents/" + a, admin);
        assertThat(allowed(b, "read", "mcp:github:issues:1")).isFalse();
        assertThat(allowed(c, "read", "mcp:github:issues:1")).isFalse();
        http.post("/agents/" + a + "/resume", admin);
        assertThat(ids(http.get("/delegations?toAgent=" + c, admin))).isEmpty();
    }

    @Test
    void aCallThroughAChainCountsAgainstEveryConstrainedGrantAndConstraintsOnlyTighten() {
        String a =
                agent("[{\"resource\":\"mcp:db:*\",\"actions\":[\"query\"],\"constraints\":{\"maxCallsPerHour\":5}}]");
        String b = agent("[]");
        Http.Response looser = delegate(
                a,
                b,
                "[{\"resource\":\"mcp:db:*\",\"actions\":[\"query\"]," + "\"constraints\":{\"maxCallsPerHour\":10}}]",
                "");
        assertThat(looser.status()).isEqualTo(400);
        assertThat(looser.json().get("code").asText()).isEqualTo("constraint_loosened");
        delegated(
                a,
                b,
                "[{\"resource\":\"mcp:db:*\",\"actions\":[\"query\"],\"constraints\":{\"maxCallsPerHour\":3}}]",
                "");

        int bAllowed = 0;
        for (int i = 0; i < 5; i++) {
            bAllowed += allowed(b, "query", "mcp:db:t") ? 1 : 0;
        }
        assertThat(bAllowed).isEqualTo(3);
        int aAllowed = 0;
        for (int i = 0; i < 5; i++) {
            aAllowed += allowed(a, "query", "mcp:db:t") ? 1 : 0;
        }
        assertThat(aAllowed).as("A's budget of 5 was shared with B's 3 calls").isEqualTo(2);
    }

    private static List<String> ids(Http.Response res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        for (JsonNode d : res.json()) {
            ids.add(d.get("id").asText());
        }
        return ids;
    }
}
