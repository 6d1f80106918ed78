package dev.warden.authorizer.condition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.Condition;
import dev.warden.authorizer.domain.Constraints;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.authorizer.domain.TimeWindow;
import dev.warden.authorizer.domain.UserId;
import dev.warden.authorizer.engine.ConditionStep;
import dev.warden.authorizer.engine.EffectiveGrant;
import dev.warden.authorizer.engine.GrantOrigin;
import java.math.BigDecimal;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConditionsTest {
    private static final Conditions CONDITIONS = Conditions.standard();
    private static final AgentId AGENT = AgentId.of("agt_condition");
    /** A Tuesday, 10:30 in Berlin (UTC+1 in winter). */
    private static final Instant TUESDAY_0930_UTC = Instant.parse("2026-12-01T09:30:00Z");

    private static Agent agent(Optional<TenantId> tenant) {
        return new Agent(
                AGENT,
                UserId.of("usr_owner"),
                tenant,
                "billing-bot",
                AgentType.SERVICE,
                AgentStatus.ACTIVE,
                List.of(),
                Optional.empty(),
                Map.of("team", "payments", "tier", 2),
                Instant.EPOCH,
                Instant.EPOCH,
                Optional.empty());
    }

    private static DecisionFacts facts(Map<String, Object> arguments, String callerIp, Instant time) {
        return DecisionFacts.of(
                agent(Optional.of(TenantId.of("acme"))),
                "write",
                "mcp:github:acme:repo",
                arguments,
                callerIp,
                time,
                Optional.of("203.0.113.9"),
                Optional.empty());
    }

    private static Optional<String> unmet(Condition condition, DecisionFacts facts) {
        Permission permission = new Permission("mcp:*", List.of("write"), Constraints.condition(condition));
        ConditionStep step = new ConditionStep(new GrantOrigin.Direct(AGENT), permission);
        return CONDITIONS.firstUnmet(List.of(step), facts).map(Conditions.Unmet::why);
    }

    private static Optional<String> unmet(String when, Map<String, Object> arguments) {
        return unmet(Condition.when(when), facts(arguments, "10.1.2.3", TUESDAY_0930_UTC));
    }

    @Test
    void everyVariableIsThereAsDocumented() {
        Map<String, Object> args = new HashMap<>();
        args.put("amount", 50);
        args.put("price", new BigDecimal("9.99"));
        args.put("note", null);
        args.put("tags", List.of("a", "b"));
        assertThat(unmet("arguments.amount <= 100 && arguments.price < 10.0 && arguments.note == null", args))
                .isEmpty();
        assertThat(unmet("arguments.tags.exists(t, t == 'b') && size(arguments.tags) == 2", args))
                .isEmpty();
        assertThat(unmet("action == 'write'", args)).isEmpty();
        assertThat(unmet("resource.name == 'mcp:github:acme:repo' && resource.parts[2] == agent.tenant", args))
                .isEmpty();
        assertThat(unmet("agent.id == 'agt_condition' && agent.type == 'service' && agent.name == 'billing-bot'", args))
                .isEmpty();
        assertThat(unmet("agent.metadata.team == 'payments' && agent.metadata.tier == 2", args))
                .isEmpty();
        assertThat(unmet("user.id == 'usr_owner'", args)).isEmpty();
        assertThat(unmet("context.ip == '10.1.2.3' && context.declaredIp == '203.0.113.9'", args))
                .isEmpty();
        assertThat(unmet("context.time == timestamp('2026-12-01T09:30:00Z')", args))
                .isEmpty();
        assertThat(unmet("context.time.getHours('Europe/Berlin') == 10", args)).isEmpty();
        assertThat(unmet("!has(context.userAgent)", args)).isEmpty();
    }

    @Test
    void aFalseOrFailingExpressionDoesNotHold() {
        assertThat(unmet("arguments.amount <= 100", Map.of("amount", 101))).contains("false");
        assertThat(unmet("arguments.amount <= 100", Map.of()))
                .hasValueSatisfying(why -> assertThat(why).startsWith("error: ").contains("amount"));
        assertThat(unmet("1 / (arguments.n - 1) == 1", Map.of("n", 1)))
                .hasValueSatisfying(why -> assertThat(why).startsWith("error: "));
        assertThat(unmet("arguments.amount", Map.of("amount", 1))).contains("false");
        assertThat(unmet("arguments.ok", Map.of("ok", true))).isEmpty();
    }

    @Test
    void anAgentWithoutATenantReadsNull() {
        DecisionFacts facts = DecisionFacts.of(
                agent(Optional.empty()),
                "read",
                "x",
                Map.of(),
                "::1",
                TUESDAY_0930_UTC,
                Optional.empty(),
                Optional.empty());
        assertThat(unmet(Condition.when("agent.tenant == null && context.ip == '::1'"), facts))
                .isEmpty();
    }

    @Test
    void aBadExpressionIsNamedWithItsPosition() {
        assertThat(CONDITIONS.problem("arguments.amount <= "))
                .hasValueSatisfying(p -> assertThat(p).startsWith("is not a valid condition at line 1, column 21: "));
        assertThat(CONDITIONS.problem("arguments.amount <= 100 &&\n nope > 1"))
                .hasValueSatisfying(
                        p -> assertThat(p).contains("line 2, column 2").contains("nope"));
        assertThat(CONDITIONS.problem("1 + 2"))
                .hasValueSatisfying(p -> assertThat(p).contains("bool"));
        assertThat(CONDITIONS.problem(" ")).contains("must be a non-blank CEL expression");
        assertThat(CONDITIONS.problem("true || ".repeat(300) + "true"))
                .hasValueSatisfying(p -> assertThat(p).contains("at most 2048 characters"));
        assertThat(CONDITIONS.problem("arguments.amount <= 100")).isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> CONDITIONS.compile(Condition.when("1 +")));
    }

    @Test
    void theCostLimitEndsAnExpensiveEvaluation() {
        String nested = "[0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c,"
                + " [0,1,2,3,4,5,6,7,8,9].all(d, a + b + c + d >= 0))))";
        assertThat(CONDITIONS.problem(nested)).isEmpty();
        assertThat(unmet(nested, Map.of()))
                .hasValueSatisfying(why -> assertThat(why).startsWith("cost limit: more than 10000 evaluation steps"));
        String big = "x".repeat(40_000);
        assertThat(unmet("arguments.s + arguments.s != ''", Map.of("s", big)))
                .hasValueSatisfying(why -> assertThat(why).startsWith("cost limit: a string longer than 65536"));
        assertThat(unmet("arguments.s + 'y' != ''", Map.of("s", big))).isEmpty();
    }

    @Test
    void allowedIpsMatchTheCallersAddress() {
        Condition office = new Condition(
                Optional.empty(),
                List.of("10.0.0.0/8", "2001:db8::/32"),
                List.of(),
                Optional.empty(),
                Optional.empty());
        assertThat(unmet(office, facts(Map.of(), "10.200.0.1", TUESDAY_0930_UTC)))
                .isEmpty();
        assertThat(unmet(office, facts(Map.of(), "2001:db8:1::5", TUESDAY_0930_UTC)))
                .isEmpty();
        assertThat(unmet(office, facts(Map.of(), "11.0.0.1", TUESDAY_0930_UTC))).contains("false");
        assertThat(unmet(office, facts(Map.of(), "2001:db9::1", TUESDAY_0930_UTC)))
                .contains("false");
        assertThat(unmet(office, facts(Map.of(), "unknown", TUESDAY_0930_UTC))).contains("false");
    }

    @Test
    void timeWindowsReadTheLocalDayAndTime() {
        TimeWindow berlinOffice = new TimeWindow(
                EnumSet.range(DayOfWeek.MONDAY, DayOfWeek.FRIDAY),
                LocalTime.of(9, 0),
                LocalTime.of(17, 0),
                ZoneId.of("Europe/Berlin"));
        Condition hours =
                new Condition(Optional.empty(), List.of(), List.of(berlinOffice), Optional.empty(), Optional.empty());
        assertThat(unmet(hours, facts(Map.of(), "10.0.0.1", TUESDAY_0930_UTC))).isEmpty();
        // 08:30 UTC is 09:30 in Berlin but 08:30 in London: the zone decides
        assertThat(unmet(hours, facts(Map.of(), "10.0.0.1", Instant.parse("2026-12-01T07:59:00Z"))))
                .contains("false");
        assertThat(unmet(hours, facts(Map.of(), "10.0.0.1", Instant.parse("2026-12-01T08:00:00Z"))))
                .isEmpty();
        assertThat(unmet(hours, facts(Map.of(), "10.0.0.1", Instant.parse("2026-12-01T16:00:00Z"))))
                .contains("false");
        // Saturday 10:00 in Berlin
        assertThat(unmet(hours, facts(Map.of(), "10.0.0.1", Instant.parse("2026-12-05T09:00:00Z"))))
                .contains("false");

        TimeWindow night = new TimeWindow(
                EnumSet.allOf(DayOfWeek.class), LocalTime.of(22, 0), LocalTime.of(6, 0), ZoneId.of("UTC"));
        Condition nights =
                new Condition(Optional.empty(), List.of(), List.of(night), Optional.empty(), Optional.empty());
        assertThat(unmet(nights, facts(Map.of(), "10.0.0.1", Instant.parse("2026-12-01T23:00:00Z"))))
                .isEmpty();
        assertThat(unmet(nights, facts(Map.of(), "10.0.0.1", Instant.parse("2026-12-01T05:59:00Z"))))
                .isEmpty();
        assertThat(unmet(nights, facts(Map.of(), "10.0.0.1", Instant.parse("2026-12-01T06:00:00Z"))))
                .contains("false");
    }

    @Test
    void validFromAndUntilBoundTheTime() {
        Condition december = new Condition(
                Optional.empty(),
                List.of(),
                List.of(),
                Optional.of(Instant.parse("2026-12-01T00:00:00Z")),
                Optional.of(Instant.parse("2027-01-01T00:00:00Z")));
        assertThat(unmet(december, facts(Map.of(), "10.0.0.1", Instant.parse("2026-12-01T00:00:00Z"))))
                .isEmpty();
        assertThat(unmet(december, facts(Map.of(), "10.0.0.1", Instant.parse("2026-11-30T23:59:59Z"))))
                .contains("false");
        assertThat(unmet(december, facts(Map.of(), "10.0.0.1", Instant.parse("2027-01-01T00:00:00Z"))))
                .contains("false");
    }

    @Test
    void everyStepOfAChainMustHoldAndTheFirstFailingOneIsNamed() {
        Permission own =
                new Permission("mcp:*", List.of("write"), Constraints.condition(Condition.when("arguments.n < 10")));
        EffectiveGrant source = EffectiveGrant.direct(AgentId.of("agt_source"), own);
        Permission narrower = new Permission(
                "mcp:github:*", List.of("write"), Constraints.condition(Condition.when("arguments.n < 5")));
        EffectiveGrant delegated =
                source.delegate(dev.warden.authorizer.domain.DelegationId.of("dlg_1"), AGENT, narrower);
        assertThat(delegated.conditions()).hasSize(2);
        DecisionFacts four = facts(Map.of("n", 4), "10.0.0.1", TUESDAY_0930_UTC);
        DecisionFacts seven = facts(Map.of("n", 7), "10.0.0.1", TUESDAY_0930_UTC);
        DecisionFacts twelve = facts(Map.of("n", 12), "10.0.0.1", TUESDAY_0930_UTC);
        assertThat(CONDITIONS.firstUnmet(delegated.conditions(), four)).isEmpty();
        assertThat(CONDITIONS.firstUnmet(delegated.conditions(), seven))
                .hasValueSatisfying(
                        u -> assertThat(u.step().describe()).isEqualTo("delegation:dlg_1 mcp:github:* write"));
        // A delegation without a condition of its own still carries its source's
        EffectiveGrant plain = source.delegate(
                dev.warden.authorizer.domain.DelegationId.of("dlg_2"), AGENT, Permission.of("mcp:github:*", "write"));
        assertThat(CONDITIONS.firstUnmet(plain.conditions(), twelve))
                .hasValueSatisfying(u -> assertThat(u.step().describe()).isEqualTo("agent:agt_source mcp:* write"));
    }

    @Test
    void cidrsAreReadStrictlyAndNeverResolved() {
        assertThat(Cidr.parse("10.0.0.0/8").contains("10.255.255.255")).isTrue();
        assertThat(Cidr.parse("192.0.2.7").contains("192.0.2.7")).isTrue();
        assertThat(Cidr.parse("192.0.2.7").contains("192.0.2.8")).isFalse();
        assertThat(Cidr.parse("0.0.0.0/0").contains("8.8.8.8")).isTrue();
        assertThat(Cidr.parse("0.0.0.0/0").contains("::1")).isFalse();
        for (String bad :
                List.of("example.com", "10.0.0.1/8", "10.0.0.0/33", "256.0.0.0/8", "10.0.0.0/", "::/129", "1.2.3")) {
            assertThatIllegalArgumentException().as(bad).isThrownBy(() -> Cidr.parse(bad));
        }
        assertThat(Cidr.parse("10.0.0.0/8").contains("localhost")).isFalse();
    }
}
