package dev.warden.authorizer.bench;

import dev.warden.authorizer.condition.Conditions;
import dev.warden.authorizer.condition.DecisionFacts;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.Condition;
import dev.warden.authorizer.domain.Constraints;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.domain.TenantId;
import dev.warden.authorizer.domain.TimeWindow;
import dev.warden.authorizer.domain.UserId;
import dev.warden.authorizer.engine.CompiledPolicy;
import dev.warden.authorizer.engine.EffectiveGrant;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The decision path of {@code POST /authorize} as far as the engine and conditions go (docs/conditions.md): the first
 * match and, when it is restricted, the conditions of each matching grant against the call's facts, built per call
 * as the service builds them. On the 104 grants of {@link BenchPolicy} plus conditional grants on {@code mcp:pay}:
 * <ul>
 *   <li>{@code free}: a hit on an unconditional grant (the path every permission without a condition takes; compare
 *       {@link WardenBench} {@code direct} in the same run);</li>
 *   <li>{@code when}: a hit whose grant has {@code arguments.amount <= 100 && resource.parts[2] == agent.tenant};</li>
 *   <li>{@code shorthands}: a hit whose grant has {@code allowedIps} (two ranges) and {@code timeWindows} (Berlin
 *       working hours, every day so that the answer does not depend on when the benchmark runs);</li>
 *   <li>{@code chain}: a hit through a delegation whose own condition and its source's both hold (two programs).</li>
 * </ul>
 */
@BenchmarkMode({Mode.SampleTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class ConditionBench {
    @Param({"free", "when", "shorthands", "chain"})
    public String scenario;

    private final Conditions conditions = Conditions.standard();
    private CompiledPolicy policy;
    private Agent agent;
    private String action;
    private String resource;
    private Map<String, Object> arguments;
    private Instant time;

    @Setup
    public void setUp() {
        AgentId id = AgentId.of(BenchPolicy.AGENT);
        agent = new Agent(
                id,
                UserId.of("usr_bench"),
                Optional.of(TenantId.of("acme")),
                "bench",
                AgentType.AUTONOMOUS,
                AgentStatus.ACTIVE,
                List.of(),
                Optional.empty(),
                Map.of("team", "payments"),
                Instant.EPOCH,
                Instant.EPOCH,
                Optional.empty());
        List<EffectiveGrant> grants = new ArrayList<>(BenchPolicy.warden().grants());
        grants.add(EffectiveGrant.direct(
                id,
                new Permission(
                        "mcp:pay:acme:*",
                        List.of("refund"),
                        Constraints.condition(
                                Condition.when("arguments.amount <= 100 && resource.parts[2] == agent.tenant")))));
        TimeWindow officeHours = new TimeWindow(
                EnumSet.allOf(DayOfWeek.class), LocalTime.of(0, 0), LocalTime.of(23, 59), ZoneId.of("Europe/Berlin"));
        grants.add(EffectiveGrant.direct(
                id,
                new Permission(
                        "mcp:pay:acme:*",
                        List.of("capture"),
                        Constraints.condition(new Condition(
                                Optional.empty(),
                                List.of("10.0.0.0/8", "192.0.2.0/24"),
                                List.of(officeHours),
                                Optional.empty(),
                                Optional.empty())))));
        AgentId source = AgentId.of("agt_bench_pay_source");
        grants.add(EffectiveGrant.direct(
                        source,
                        new Permission(
                                "mcp:pay:*",
                                List.of("void"),
                                Constraints.condition(Condition.when("arguments.amount <= 1000"))))
                .delegate(
                        DelegationId.of("dlg_bench_pay"),
                        id,
                        new Permission(
                                "mcp:pay:acme:*",
                                List.of("void"),
                                Constraints.condition(Condition.when("arguments.amount <= 100")))));
        policy = CompiledPolicy.compile(grants);
        resource = "mcp:pay:acme:order-42";
        arguments = Map.of("amount", 40, "currency", "EUR", "order", "42");
        time = Instant.parse("2026-12-01T10:00:00Z");
        action = switch (scenario) {
            case "free" -> {
                resource = BenchPolicy.Query.DIRECT.resource;
                yield BenchPolicy.Query.DIRECT.action;
            }
            case "when" -> "refund";
            case "shorthands" -> "capture";
            case "chain" -> "void";
            default -> throw new IllegalArgumentException(scenario);
        };
        if (!decide()) {
            throw new IllegalStateException(scenario + ": expected an allow");
        }
        EffectiveGrant first = policy.firstMatch(action, resource).orElseThrow();
        if (scenario.equals("free") != first.isUnrestricted()) {
            throw new IllegalStateException(scenario + ": unexpected first match " + first);
        }
    }

    @Benchmark
    public boolean decide() {
        Optional<EffectiveGrant> first = policy.firstMatch(action, resource);
        if (first.isEmpty()) {
            return false;
        }
        if (first.get().isUnrestricted()) {
            return true;
        }
        DecisionFacts facts = DecisionFacts.of(
                agent, action, resource, arguments, "10.1.2.3", time, Optional.empty(), Optional.empty());
        for (EffectiveGrant grant : policy.matches(action, resource)) {
            if (conditions.firstUnmet(grant.conditions(), facts).isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
