package dev.warden.api.authorize;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.pipeline.contract.AuditEntry;
import dev.warden.pipeline.contract.AuditResult;
import dev.warden.testing.AuditTopic;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Conditions on permissions through real HTTP (docs/conditions.md): written and read back, checked when written, met
 * or not at decision time, chained along delegations, and named in the audit entry of a denial.
 */
class ConditionsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static Http http;
    static String admin;

    @BeforeAll
    static void setUp() {
        http = warden.http();
        admin = warden.adminToken();
    }

    static Http.Response create(String permissions) {
        return http.post(
                "/agents",
                admin,
                "{\"ownerId\":\"cora\",\"name\":\"c\",\"type\":\"autonomous\",\"metadata\":{\"team\":\"pay\"},"
                        + "\"tenantId\":\"acme\",\"permissions\":" + permissions + "}");
    }

    static String agent(String permissions) {
        Http.Response res = create(permissions);
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json().get("id").asText();
    }

    static JsonNode ask(String agentId, String resource, String arguments, String context) {
        Http.Response res = http.post("/authorize", admin, """
                {"agentId":"%s","action":"write","resource":"%s","arguments":%s,"context":%s}""".formatted(agentId, resource, arguments, context));
        assertThat(res.status()).as(res.body()).isEqualTo(200);
        return res.json();
    }

    static JsonNode ask(String agentId, String arguments) {
        return ask(agentId, "mcp:pay:acme:refund", arguments, "{}");
    }

    static AuditEntry entry(JsonNode decision) {
        String id = decision.get("auditId").asText();
        return AuditTopic.read(warden, e -> e.id().equals(id), 1).getFirst();
    }

    @Test
    void aWhenExpressionReadsTheArgumentsAndADenialNamesThePermission() {
        String id = agent("""
                [{"resource":"mcp:pay:*","actions":["write"],
                  "constraints":{"when":"arguments.amount <= 100 && resource.parts[2] == agent.tenant"}}]""");

        JsonNode allowed = ask(id, "{\"amount\":100}");
        assertThat(allowed.get("allowed").asBoolean()).as(allowed.toString()).isTrue();
        AuditEntry allowedEntry = entry(allowed);
        assertThat(allowedEntry.callerIp()).as("the address Warden saw").hasValue("127.0.0.1");
        assertThat(allowedEntry.reasonDetail()).isEmpty();

        JsonNode denied = ask(id, "{\"amount\":101}");
        assertThat(denied.get("allowed").asBoolean()).isFalse();
        assertThat(denied.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
        AuditEntry deniedEntry = entry(denied);
        assertThat(deniedEntry.result()).isEqualTo(AuditResult.DENIED);
        assertThat(deniedEntry.reason()).hasValue("CONDITION_NOT_MET");
        assertThat(deniedEntry.reasonDetail()).hasValue("condition of agent:" + id + " mcp:pay:* write: false");

        JsonNode otherTenant = ask(id, "mcp:pay:globex:refund", "{\"amount\":1}", "{}");
        assertThat(otherTenant.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");

        JsonNode missing = ask(id, "{}");
        assertThat(missing.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
        assertThat(entry(missing).reasonDetail())
                .hasValueSatisfying(d -> assertThat(d).contains("error: ").contains("amount"));

        // No permission at all is still NO_MATCHING_PERMISSION, not a condition
        assertThat(ask(id, "mcp:github:x", "{\"amount\":1}", "{}").get("reason").asText())
                .isEqualTo("NO_MATCHING_PERMISSION");
        // GET /audit reads the stored row back with both fields
        Http.Response read = http.get("/audit?agentId=" + id + "&result=denied", admin);
        assertThat(read.status()).isEqualTo(200);
        JsonNode stored = null;
        for (JsonNode e : read.json()) {
            if (e.get("id").asText().equals(denied.get("auditId").asText())) {
                stored = e;
            }
        }
        assertThat(stored).as(read.body()).isNotNull();
        assertThat(stored.get("reasonDetail").asText())
                .isEqualTo(deniedEntry.reasonDetail().orElseThrow());
        assertThat(stored.get("context").get("callerIp").asText()).isEqualTo("127.0.0.1");
    }

    @Test
    void allowedIpsReadTheAddressWardenSawNotTheOneDeclared() {
        String loopback = agent("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{"allowedIps":["127.0.0.0/8","::1/128"]}}]""");
        String office = agent("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{"allowedIps":["10.0.0.0/8"]}}]""");
        assertThat(ask(loopback, "{}").get("allowed").asBoolean()).isTrue();
        JsonNode claimed = ask(office, "mcp:pay:acme:refund", "{}", "{\"ip\":\"10.1.2.3\"}");
        assertThat(claimed.get("allowed").asBoolean()).isFalse();
        assertThat(claimed.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
        AuditEntry entry = entry(claimed);
        assertThat(entry.ip()).hasValue("10.1.2.3");
        assertThat(entry.callerIp()).hasValue("127.0.0.1");
    }

    @Test
    void validityAndTimeWindowsBoundTheTime() {
        String expired = agent("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{"validUntil":"2020-01-01T00:00:00Z"}}]""");
        assertThat(ask(expired, "{}").get("reason").asText()).isEqualTo("CONDITION_NOT_MET");

        String allWeek = """
                ["mon","tue","wed","thu","fri","sat","sun"]""";
        // 00:00 to 12:00, and 12:00 to midnight (an end of 00:00 wraps): every minute of every day
        String always = agent("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{"validFrom":"2020-01-01T00:00:00Z",
                  "timeWindows":[{"days":%s,"start":"00:00","end":"12:00","timeZone":"Europe/Berlin"},
                                 {"days":%s,"start":"12:00","end":"00:00","timeZone":"Europe/Berlin"}]}}]""".formatted(allWeek, allWeek));
        assertThat(ask(always, "{}").get("allowed").asBoolean()).isTrue();

        String today = java.time.LocalDate.now(java.time.ZoneOffset.UTC)
                .getDayOfWeek()
                .getDisplayName(java.time.format.TextStyle.SHORT, java.util.Locale.ROOT)
                .toLowerCase(java.util.Locale.ROOT);
        String otherDays = allWeek.replace("\"" + today + "\",", "").replace(",\"" + today + "\"", "");
        String notToday = agent("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{
                  "timeWindows":[{"days":%s,"start":"00:00","end":"00:00","timeZone":"UTC"}]}}]""".formatted(otherDays).replace("\"end\":\"00:00\"", "\"end\":\"23:59\""));
        assertThat(ask(notToday, "{}").get("reason").asText()).isEqualTo("CONDITION_NOT_MET");

        Http.Response empty = create("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{
                  "timeWindows":[{"days":["mon"],"start":"09:00","end":"09:00","timeZone":"UTC"}]}}]""");
        assertThat(empty.status()).isEqualTo(400);
        assertThat(empty.body()).contains("permissions[0].constraints.timeWindows[0].end");
    }

    @Test
    void aDelegationOnlyNarrowsAndTheFailingLinkIsNamed() {
        String source = agent("""
                [{"resource":"mcp:pay:*","actions":["write"],"constraints":{"when":"arguments.amount <= 100"}}]""");
        String target = agent("[]");
        Http.Response delegation = http.post("/delegations", admin, """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"mcp:pay:acme:*","actions":["write"],
                 "constraints":{"when":"arguments.amount <= 10"}}]}""".formatted(source, target));
        assertThat(delegation.status()).as(delegation.body()).isEqualTo(201);
        String delegationId = delegation.json().get("id").asText();

        assertThat(ask(target, "{\"amount\":10}").get("allowed").asBoolean()).isTrue();
        JsonNode overOwn = ask(target, "{\"amount\":50}");
        assertThat(overOwn.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
        assertThat(entry(overOwn).reasonDetail())
                .hasValue("condition of delegation:" + delegationId + " mcp:pay:acme:* write: false");
        // the source still allows 50 itself
        assertThat(ask(source, "{\"amount\":50}").get("allowed").asBoolean()).isTrue();

        // A delegation without a condition of its own still carries the source's
        String plainTarget = agent("[]");
        Http.Response plain = http.post("/delegations", admin, """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"mcp:pay:*","actions":["write"]}]}""".formatted(source, plainTarget));
        assertThat(plain.status()).as(plain.body()).isEqualTo(201);
        assertThat(ask(plainTarget, "{\"amount\":50}").get("allowed").asBoolean())
                .isTrue();
        JsonNode overSource = ask(plainTarget, "{\"amount\":500}");
        assertThat(overSource.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
        assertThat(entry(overSource).reasonDetail())
                .hasValue("condition of agent:" + source + " mcp:pay:* write: false");
    }

    @Test
    void aConditionThatFailsFallsThroughToABudgetedPermission() {
        String id = agent("""
                [{"resource":"mcp:pay:acme:*","actions":["write"],"constraints":{"when":"arguments.amount <= 10"}},
                 {"resource":"mcp:pay:*","actions":["write"],"constraints":{"maxCallsPerHour":1}}]""");
        // the conditional grant holds: no budget spent
        assertThat(ask(id, "{\"amount\":5}").get("allowed").asBoolean()).isTrue();
        assertThat(ask(id, "{\"amount\":5}").get("allowed").asBoolean()).isTrue();
        // it does not: the budget allows one call, then the answer is RATE_LIMITED, not CONDITION_NOT_MET
        assertThat(ask(id, "{\"amount\":50}").get("allowed").asBoolean()).isTrue();
        JsonNode limited = ask(id, "{\"amount\":50}");
        assertThat(limited.get("reason").asText()).isEqualTo("RATE_LIMITED");
        assertThat(limited.has("retryAfter")).isTrue();
    }

    @Test
    void anExpensiveConditionIsEndedByTheCostLimit() {
        String id = agent("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{"when":
                  "arguments.xs.all(a, arguments.xs.all(b, arguments.xs.all(c, a + b + c >= 0)))"}}]""");
        JsonNode small = ask(id, "{\"xs\":[1,2,3]}");
        assertThat(small.get("allowed").asBoolean()).as(small.toString()).isTrue();
        StringBuilder many = new StringBuilder("[0");
        for (int i = 1; i < 100; i++) {
            many.append(',').append(i);
        }
        JsonNode big = ask(id, "{\"xs\":" + many + "]}");
        assertThat(big.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
        assertThat(entry(big).reasonDetail())
                .hasValueSatisfying(d -> assertThat(d).contains("cost limit"));
    }

    @Test
    void aBadConditionIsA400NamingTheFieldAndThePosition() {
        Http.Response bad = create("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{"when":"arguments.amount <= "}}]""");
        assertThat(bad.status()).isEqualTo(400);
        JsonNode error = bad.json().get("errors").get(0);
        assertThat(error.get("field").asText()).isEqualTo("permissions[0].constraints.when");
        assertThat(error.get("message").asText()).startsWith("is not a valid condition at line 1, column 21");

        Http.Response shorthand = create("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{"allowedIps":["10.0.0.1/8","example.com"],
                  "timeWindows":[{"days":["someday"],"start":"9:00","end":"17:00","timeZone":"Mars/Olympus"}],
                  "validFrom":"2027-01-01T00:00:00Z","validUntil":"2026-01-01T00:00:00Z","whenever":true}}]""");
        assertThat(shorthand.status()).isEqualTo(400);
        assertThat(shorthand.body())
                .contains("permissions[0].constraints.allowedIps[0]")
                .contains("permissions[0].constraints.allowedIps[1]")
                .contains("permissions[0].constraints.timeWindows[0].days")
                .contains("permissions[0].constraints.timeWindows[0].start")
                .contains("permissions[0].constraints.timeWindows[0].timeZone")
                .contains("permissions[0].constraints.validUntil")
                .contains("permissions[0].constraints.whenever");

        Http.Response delegation = http.post(
                "/delegations", admin, """
                {"fromAgent":"%s","toAgent":"%s","permissions":[{"resource":"mcp:*","actions":["write"],
                 "constraints":{"when":"nope(1)"}}]}""".formatted(agent("[{\"resource\":\"*\",\"actions\":[\"*\"]}]"), agent("[]")));
        assertThat(delegation.status()).isEqualTo(400);
        assertThat(delegation.body())
                .contains("permissions[0].constraints.when")
                .contains("line 1, column");
    }

    @Test
    void hostileExpressionsAreRefusedWhenWrittenOrBoundedWhenEvaluated() {
        java.util.Map<String, String> refused = new java.util.LinkedHashMap<>();
        refused.put("deep parentheses", "(".repeat(500) + "true" + ")".repeat(500));
        refused.put("too many nodes", "1 + ".repeat(450) + "1 == 1");
        refused.put("too long", "true && ".repeat(300) + "true");
        refused.put("NUL", "arguments.a == '\\u0000' \u0000");
        refused.put("not boolean", "'text'");
        refused.put("unknown function", "system('rm -rf /')");
        refused.put("unknown variable", "env.HOME == '/root'");
        for (var e : refused.entrySet()) {
            WhenBody body = new WhenBody(e.getValue());
            Http.Response res = create(body.permissions());
            assertThat(res.status()).as(e.getKey() + ": " + res.body()).isEqualTo(400);
            assertThat(res.body()).as(e.getKey()).contains("permissions[0].constraints.when");
        }
        // Within the write-time limits but expensive at run time: the decision is made, denied by the cost limit
        String id =
                agent(new WhenBody("arguments.xs.all(a, arguments.xs.all(b, arguments.xs.all(c, arguments.xs.all(d, "
                                + "arguments.xs.all(e, a + b + c + d + e >= 0))))) && arguments.s + arguments.s"
                                + " + arguments.s != ''")
                        .permissions());
        StringBuilder xs = new StringBuilder("[0");
        for (int i = 1; i < 1000; i++) {
            xs.append(',').append(i);
        }
        JsonNode denied = ask(id, "{\"xs\":" + xs + "],\"s\":\"" + "y".repeat(30_000) + "\"}");
        assertThat(denied.get("reason").asText()).isEqualTo("CONDITION_NOT_MET");
        assertThat(entry(denied).reasonDetail())
                .hasValueSatisfying(d -> assertThat(d).contains("cost limit"));
    }

    /** A permissions array whose one permission's {@code when} is {@code expression}, JSON-escaped. */
    private record WhenBody(String expression) {
        String permissions() {
            return "[{\"resource\":\"mcp:*\",\"actions\":[\"write\"],\"constraints\":{\"when\":"
                    + dev.warden.pipeline.contract.Json.mapper().valueToTree(expression) + "}}]";
        }
    }

    @Test
    void theConditionReadsBackAsWritten() {
        String id = agent("""
                [{"resource":"mcp:*","actions":["write"],"constraints":{"maxCallsPerHour":5,"when":"true",
                  "allowedIps":["10.0.0.0/8"],
                  "timeWindows":[{"days":["fri","mon"],"start":"09:00","end":"17:30","timeZone":"Europe/Berlin"}],
                  "validFrom":"2026-01-01T00:00:00Z","validUntil":"2030-01-01T00:00:00Z"}}]""");
        JsonNode constraints = http.get("/agents/" + id, admin)
                .json()
                .get("permissions")
                .get(0)
                .get("constraints");
        assertThat(constraints.get("maxCallsPerHour").asInt()).isEqualTo(5);
        assertThat(constraints.get("when").asText()).isEqualTo("true");
        assertThat(constraints.get("allowedIps").toString()).isEqualTo("[\"10.0.0.0/8\"]");
        assertThat(constraints.get("timeWindows").toString())
                .isEqualTo("[{\"days\":[\"mon\",\"fri\"],\"start\":\"09:00\",\"end\":\"17:30\","
                        + "\"timeZone\":\"Europe/Berlin\"}]");
        assertThat(constraints.get("validFrom").asText()).isEqualTo("2026-01-01T00:00:00.000Z");
        assertThat(constraints.get("validUntil").asText()).isEqualTo("2030-01-01T00:00:00.000Z");
    }
}
