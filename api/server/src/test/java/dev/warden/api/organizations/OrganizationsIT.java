package dev.warden.api.organizations;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.api.users.UsersConfig;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Organizations through the real HTTP surface: membership and the active organization, roles and the permission
 * catalogue, the last owner, the administration of agents and delegations with cursors, agent placement, the
 * audit entries of administrative actions, and every problem code of docs/organizations.md.
 */
class OrganizationsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(
            b -> b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                    .rateLimit(RateLimitConfig.builder()
                            .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                            .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                            .build()));

    /** A signed-up user: id and session token. */
    record User(String id, String token) {}

    static User signUp() {
        String name = "u_" + UUID.randomUUID().toString().substring(0, 8);
        Http.Response res = warden.http()
                .post(
                        "/auth/sign-up",
                        null,
                        "{\"username\":\"" + name + "\",\"password\":\"correct horse battery staple\"}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return new User(
                res.json().get("user").get("id").asText(),
                res.json().get("token").asText());
    }

    static String createOrganization(User owner, String name) {
        Http.Response res = warden.http().post("/admin/v1/organizations", owner.token(), "{\"name\":\"" + name + "\"}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        assertThat(res.json().get("role").asText()).isEqualTo("owner");
        return res.json().get("id").asText();
    }

    static void addMember(User by, String org, User user, String role) {
        Http.Response res = warden.http()
                .post(
                        "/admin/v1/organizations/" + org + "/members",
                        by.token(),
                        "{\"userId\":\"" + user.id() + "\",\"role\":\"" + role + "\"}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
    }

    static String createAgent(User owner, String name) {
        Http.Response res = warden.http()
                .post(
                        "/agents",
                        owner.token(),
                        "{\"ownerId\":\"" + owner.id()
                                + "\",\"name\":\"" + name
                                + "\",\"type\":\"autonomous\",\"permissions\":[{\"resource\":\"doc:*\","
                                + "\"actions\":[\"read\"]}]}");
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    static void assertProblem(Http.Response res, int status, String code) {
        assertThat(res.status()).as(res.body()).isEqualTo(status);
        assertThat(res.header("Content-Type").orElseThrow()).startsWith("application/problem+json");
        assertThat(res.json().get("code").asText()).isEqualTo(code);
    }

    @Test
    void theCreatorOwnsTheOrganizationWhichBecomesActiveAndHoldsTheirNewAgents() {
        Http http = warden.http();
        User alice = signUp();
        assertProblem(http.get("/admin/v1/active-organization", alice.token()), 403, "no_active_org");
        assertProblem(http.get("/admin/v1/organizations/org_whatever/agents", alice.token()), 403, "no_active_org");

        String org = createOrganization(alice, "Acme");
        JsonNode mine = http.get("/admin/v1/organizations", alice.token()).json();
        assertThat(mine).hasSize(1);
        assertThat(mine.get(0).get("id").asText()).isEqualTo(org);
        assertThat(mine.get(0).get("role").asText()).isEqualTo("owner");
        assertThat(mine.get(0).get("active").asBoolean()).isTrue();
        assertThat(http.get("/admin/v1/active-organization", alice.token())
                        .json()
                        .get("id")
                        .asText())
                .isEqualTo(org);

        String agent = createAgent(alice, "triage");
        assertThat(http.get("/agents/" + agent, alice.token())
                        .json()
                        .get("tenantId")
                        .asText())
                .isEqualTo(org);
        assertThat(http.get("/agents?tenantId=" + org, alice.token()).json()).hasSize(1);
        // A tenant from before organizations stays a free label; an organization-shaped one must exist.
        Http.Response label = http.post(
                "/agents",
                alice.token(),
                "{\"ownerId\":\"" + alice.id()
                        + "\",\"tenantId\":\"acme-legacy\",\"name\":\"l\",\"type\":\"service\",\"permissions\":[]}");
        assertThat(label.status()).isEqualTo(201);
        assertThat(label.json().get("tenantId").asText()).isEqualTo("acme-legacy");
        Http.Response missing = http.post(
                "/agents",
                alice.token(),
                "{\"ownerId\":\"" + alice.id()
                        + "\",\"tenantId\":\"org_nosuchorganization\",\"name\":\"l\",\"type\":\"service\",\"permissions\":[]}");
        assertProblem(missing, 400, "validation_invalid");
        assertThat(missing.json().get("errors").get(0).get("field").asText()).isEqualTo("tenantId");

        // Organizations are for users with an account, not for a user id that only has API tokens.
        String tokenOnly = http.post("/auth/tokens", warden.adminToken(), "{\"name\":\"t\",\"userId\":\"no-account\"}")
                .json()
                .get("token")
                .asText();
        assertProblem(http.post("/admin/v1/organizations", tokenOnly, "{\"name\":\"x\"}"), 403, "forbidden");
        assertProblem(
                http.post(
                        "/admin/v1/organizations/" + org + "/members",
                        alice.token(),
                        "{\"userId\":\"no-account\",\"role\":\"member\"}"),
                404,
                "not_found");

        // An agent cannot be placed in an organization its owner is not in.
        User mallory = signUp();
        Http.Response foreign = http.post(
                "/agents",
                mallory.token(),
                "{\"ownerId\":\"" + mallory.id() + "\",\"tenantId\":\"" + org
                        + "\",\"name\":\"m\",\"type\":\"service\",\"permissions\":[]}");
        assertProblem(foreign, 403, "user_not_in_org");
        assertThat(http.get("/admin/v1/organizations/" + org + "/agents", alice.token())
                        .json()
                        .get("items"))
                .hasSize(1);
    }

    @Test
    void rolesGateTheAdministrationAndCustomRolesComeFromTheCatalogue() {
        Http http = warden.http();
        User owner = signUp();
        User member = signUp();
        String org = createOrganization(owner, "Roles");
        addMember(owner, org, member, "member");
        String agent = createAgent(member, "worker");

        String agents = "/admin/v1/organizations/" + org + "/agents";
        assertProblem(http.get(agents, member.token()), 403, "forbidden");
        assertThat(http.get("/admin/v1/organizations/" + org + "/members", member.token())
                        .json())
                .hasSize(2);

        Http.Response unknown = http.post(
                "/admin/v1/organizations/" + org + "/roles",
                owner.token(),
                "{\"name\":\"auditor\",\"permissions\":[\"agents:read\",\"agents:destroy\"]}");
        assertProblem(unknown, 400, "unknown_permission");
        assertThat(unknown.json().get("errors").get(0).get("field").asText()).isEqualTo("permissions[1]");
        assertThat(http.post(
                                "/admin/v1/organizations/" + org + "/roles",
                                owner.token(),
                                "{\"name\":\"auditor\",\"permissions\":[\"agents:read\"]}")
                        .status())
                .isEqualTo(201);
        assertThat(http.patch(
                                "/admin/v1/organizations/" + org + "/members/" + member.id(),
                                owner.token(),
                                "{\"role\":\"auditor\"}")
                        .json()
                        .get("role")
                        .asText())
                .isEqualTo("auditor");

        assertThat(http.get(agents, member.token()).json().get("items")).hasSize(1);
        assertProblem(http.post(agents + "/" + agent + "/suspend", member.token()), 403, "forbidden");
        assertProblem(
                http.delete("/admin/v1/organizations/" + org + "/roles/auditor", owner.token()), 409, "role_in_use");
        http.patch(
                "/admin/v1/organizations/" + org + "/members/" + member.id(), owner.token(), "{\"role\":\"member\"}");
        assertThat(http.delete("/admin/v1/organizations/" + org + "/roles/auditor", owner.token())
                        .status())
                .isEqualTo(204);
        assertThat(http.get("/admin/v1/organizations/" + org + "/roles", owner.token())
                        .json())
                .extracting(r -> r.get("name").asText())
                .containsExactly("owner", "admin", "member");
    }

    @Test
    void theLastOwnerStaysAndOnlyOwnersGrantOwnership() {
        Http http = warden.http();
        User owner = signUp();
        User admin = signUp();
        User member = signUp();
        String org = createOrganization(owner, "Owners");
        addMember(owner, org, admin, "admin");
        addMember(owner, org, member, "member");
        String members = "/admin/v1/organizations/" + org + "/members/";

        // Nobody changes their own role (security review, finding 2); leaving is how the last owner would go.
        assertProblem(http.patch(members + owner.id(), owner.token(), "{\"role\":\"admin\"}"), 403, "forbidden");
        assertProblem(http.delete(members + owner.id(), owner.token()), 409, "last_owner");
        assertProblem(http.patch(members + member.id(), admin.token(), "{\"role\":\"owner\"}"), 403, "forbidden");
        assertProblem(http.delete(members + owner.id(), admin.token()), 403, "forbidden");
        assertProblem(
                http.patch(members + "usr_nobody", owner.token(), "{\"role\":\"admin\"}"), 403, "user_not_in_org");
        assertProblem(
                http.post(
                        "/admin/v1/organizations/" + org + "/members",
                        owner.token(),
                        "{\"userId\":\"" + member.id() + "\",\"role\":\"member\"}"),
                409,
                "already_member");
        Http.Response badRole = http.patch(members + member.id(), owner.token(), "{\"role\":\"overlord\"}");
        assertProblem(badRole, 400, "validation_invalid");

        assertThat(http.patch(members + admin.id(), owner.token(), "{\"role\":\"owner\"}")
                        .status())
                .isEqualTo(200);
        assertThat(http.delete(members + owner.id(), owner.token()).status()).isEqualTo(204);
        // Leaving cleared the active organization.
        assertProblem(http.get("/admin/v1/active-organization", owner.token()), 403, "no_active_org");
        // A member may leave by themselves.
        assertThat(http.delete(members + member.id(), member.token()).status()).isEqualTo(204);
        assertThat(http.get("/admin/v1/organizations/" + org + "/members", admin.token())
                        .json())
                .hasSize(1);
    }

    @Test
    void thePathMustNameTheActiveOrganization() {
        Http http = warden.http();
        User user = signUp();
        String first = createOrganization(user, "First");
        String second = createOrganization(user, "Second");
        assertThat(http.get("/admin/v1/active-organization", user.token())
                        .json()
                        .get("id")
                        .asText())
                .isEqualTo(first);
        assertProblem(http.get("/admin/v1/organizations/" + second + "/agents", user.token()), 403, "org_mismatch");
        assertThat(http.put("/admin/v1/active-organization", user.token(), "{\"organizationId\":\"" + second + "\"}")
                        .status())
                .isEqualTo(200);
        assertThat(http.get("/admin/v1/organizations/" + second + "/agents", user.token())
                        .status())
                .isEqualTo(200);
        assertProblem(http.get("/admin/v1/organizations/" + first + "/agents", user.token()), 403, "org_mismatch");

        User stranger = signUp();
        assertProblem(
                http.put("/admin/v1/active-organization", stranger.token(), "{\"organizationId\":\"" + first + "\"}"),
                403,
                "user_not_in_org");
        // The bootstrap administrator administers every organization; an agent none.
        assertThat(http.get("/admin/v1/organizations/" + first + "/agents", warden.adminToken())
                        .status())
                .isEqualTo(200);
        assertProblem(
                http.get("/admin/v1/organizations/org_0000000000000000000000000/agents", warden.adminToken()),
                404,
                "not_found");
        String agentToken = http.post(
                        "/agents",
                        user.token(),
                        "{\"ownerId\":\"" + user.id() + "\",\"name\":\"a\",\"type\":\"service\",\"permissions\":[]}")
                .json()
                .get("token")
                .asText();
        assertProblem(http.get("/admin/v1/organizations/" + second + "/agents", agentToken), 403, "forbidden");
    }

    @Test
    void administratorsPageThroughAgentsWithTamperEvidentCursorsAndActOnThem() throws Exception {
        Http http = warden.http();
        User owner = signUp();
        User member = signUp();
        String org = createOrganization(owner, "Paging");
        addMember(owner, org, member, "member");
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            created.add(createAgent(member, "bot-" + i));
        }
        String base = "/admin/v1/organizations/" + org + "/agents";
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            JsonNode page = http.get(base + "?limit=2" + (cursor == null ? "" : "&cursor=" + cursor), owner.token())
                    .json();
            page.get("items").forEach(a -> seen.add(a.get("id").asText()));
            cursor = page.get("nextCursor").isNull()
                    ? null
                    : page.get("nextCursor").asText();
            pages++;
        } while (cursor != null);
        assertThat(pages).isEqualTo(3);
        assertThat(seen).containsExactlyElementsOf(created.reversed());

        String first = http.get(base + "?limit=2", owner.token())
                .json()
                .get("nextCursor")
                .asText();
        char last = first.charAt(first.length() - 1);
        String tampered = first.substring(0, first.length() - 1) + (last == 'A' ? 'B' : 'A');
        assertProblem(http.get(base + "?limit=2&cursor=" + tampered, owner.token()), 400, "bad_cursor");
        assertProblem(http.get(base + "?limit=2&status=active&cursor=" + first, owner.token()), 400, "bad_cursor");
        assertProblem(http.get(base + "?limit=2&cursor=garbage", owner.token()), 400, "bad_cursor");
        assertProblem(http.get(base + "?limit=0", owner.token()), 400, "validation_invalid");

        String target = created.getFirst();
        Instant before = Instant.now().minusSeconds(1);
        assertThat(http.post(base + "/" + target + "/suspend", owner.token())
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("suspended");
        assertThat(http.post(base + "/" + target + "/resume", owner.token())
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("active");
        assertProblem(http.post(base + "/" + target + "/frobnicate", owner.token()), 400, "unsupported_action");
        assertThat(http.post(base + "/" + target + "/revoke", owner.token())
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("revoked");
        assertThat(http.get("/agents/" + target, member.token())
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("revoked");

        // Another organization's agent is not found through this one.
        User other = signUp();
        createOrganization(other, "Other");
        String foreign = createAgent(other, "theirs");
        assertProblem(http.get(base + "/" + foreign, owner.token()), 404, "agent_not_found");
        assertProblem(http.post(base + "/" + foreign + "/revoke", owner.token()), 404, "agent_not_found");
        assertThat(http.get("/agents/" + foreign, other.token())
                        .json()
                        .get("status")
                        .asText())
                .isEqualTo("active");

        // Each action is audited: actor, target, organization, before and after.
        JsonNode audit = awaitAudit("admin.agent.suspend", target, before);
        assertThat(audit.get("callerId").asText()).isEqualTo(owner.id());
        assertThat(audit.get("userId").asText()).isEqualTo(member.id());
        assertThat(audit.get("resource").asText()).isEqualTo("organization:" + org + "/agent:" + target);
        JsonNode parameters = audit.get("parameters");
        assertThat(parameters.get("organization").asText()).isEqualTo(org);
        assertThat(parameters.get("before").get("status").asText()).isEqualTo("active");
        assertThat(parameters.get("after").get("status").asText()).isEqualTo("suspended");
        awaitAudit("admin.agent.revoke", target, before);
        // The member sees what was done to their agent.
        assertThat(http.get("/audit?actions=admin.agent.revoke&agentId=" + target, member.token())
                        .json())
                .hasSize(1);
    }

    @Test
    void administratorsListAndRevokeTheOrganizationsDelegations() throws Exception {
        Http http = warden.http();
        User owner = signUp();
        User member = signUp();
        String org = createOrganization(owner, "Chains");
        addMember(owner, org, member, "member");
        String from = createAgent(member, "from");
        String to = createAgent(member, "to");
        Http.Response delegation = http.post(
                "/delegations",
                member.token(),
                "{\"fromAgent\":\"" + from
                        + "\",\"toAgent\":\"" + to
                        + "\",\"permissions\":[{\"resource\":\"doc:*\",\"actions\":[\"read\"]}],"
                        + "\"maxDepth\":2}");
        assertThat(delegation.status()).as(delegation.body()).isEqualTo(201);
        String id = delegation.json().get("id").asText();

        String base = "/admin/v1/organizations/" + org + "/delegations";
        assertThat(http.get(base, owner.token()).json().get("items"))
                .extracting(d -> d.get("id").asText())
                .containsExactly(id);
        assertThat(http.get(base + "/" + id, owner.token()).status()).isEqualTo(200);
        assertProblem(http.post(base + "/" + id + "/suspend", owner.token()), 400, "unsupported_action");
        assertProblem(http.get(base, member.token()), 403, "forbidden");
        Instant before = Instant.now().minusSeconds(1);
        assertThat(http.post(base + "/" + id + "/revoke", owner.token()).status())
                .isEqualTo(204);
        assertThat(http.get(base, owner.token()).json().get("items")).isEmpty();
        assertThat(http.get("/delegations", member.token()).json()).isEmpty();
        JsonNode audit = awaitAudit("admin.delegation.revoke", "", before);
        assertThat(audit.get("resource").asText()).isEqualTo("organization:" + org + "/delegation:" + id);
    }

    @Test
    void membershipChangesAreAudited() throws Exception {
        Http http = warden.http();
        User owner = signUp();
        User member = signUp();
        Instant before = Instant.now().minusSeconds(1);
        String org = createOrganization(owner, "Audited");
        addMember(owner, org, member, "member");
        http.patch("/admin/v1/organizations/" + org + "/members/" + member.id(), owner.token(), "{\"role\":\"admin\"}");
        JsonNode change = awaitAuditOf("admin.member.role_change", member.id(), before);
        assertThat(change.get("parameters").get("before").get("role").asText()).isEqualTo("member");
        assertThat(change.get("parameters").get("after").get("role").asText()).isEqualTo("admin");
        assertThat(change.get("callerId").asText()).isEqualTo(owner.id());
        awaitAuditOf("admin.member.add", member.id(), before);
        awaitAuditOf("admin.organization.create", owner.id(), before);
    }

    /** The administrative audit entry {@code action} about agent {@code agentId}, once the audit log has it. */
    private static JsonNode awaitAudit(String action, String agentId, Instant since) throws InterruptedException {
        return await("/audit?actions=" + action + "&since=" + since + (agentId.isEmpty() ? "" : "&agentId=" + agentId));
    }

    /** The administrative audit entry {@code action} about user {@code userId}. */
    private static JsonNode awaitAuditOf(String action, String userId, Instant since) throws InterruptedException {
        return await("/audit?actions=" + action + "&userId=" + userId + "&since=" + since);
    }

    private static JsonNode await(String query) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (Instant.now().isBefore(deadline)) {
            JsonNode entries = warden.http().get(query, warden.adminToken()).json();
            if (entries.isArray() && !entries.isEmpty()) {
                return entries.get(0);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no audit entry for " + query);
    }
}
