package dev.warden.api.authorize;

import dev.warden.authorizer.engine.DecisionReason;
import dev.warden.pipeline.contract.AuditResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The meters of {@code POST /authorize}: {@code warden.decisions} by result and reason, and the time of each
 * phase of a decision, {@code warden.authorize.phase} with {@code phase} = {@code policy} (resolving the agent's
 * policy and matching it), {@code quota} (the round trip to the quota owner, for constrained grants only) and
 * {@code audit} (until Kafka acknowledged the audit entry). Meters are created once and kept; recording is a few
 * additions. Thread-safe.
 */
public final class DecisionMeters {
    private static final Duration[] BUCKETS = {
        Duration.ofNanos(100_000),
        Duration.ofNanos(250_000),
        Duration.ofNanos(500_000),
        Duration.ofMillis(1),
        Duration.ofMillis(2),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(1000)
    };

    private final MeterRegistry registry;
    private final Timer policy;
    private final Timer quota;
    private final Timer audit;
    /** By result, then by reason ({@code [0]}: none, {@code [1 + ordinal]}); filled as combinations occur. */
    private final Counter[][] decisions = new Counter[AuditResult.values().length][DecisionReason.values().length + 1];

    public DecisionMeters(MeterRegistry registry) {
        this.registry = registry;
        this.policy = phase("policy");
        this.quota = phase("quota");
        this.audit = phase("audit");
    }

    /** Meters that record nothing (tests and tools that have no registry). */
    public static DecisionMeters none() {
        return new DecisionMeters(new CompositeMeterRegistry());
    }

    /** One decision with the time of its phases ({@code quotaNanos} 0 when the quota owner was not asked). */
    void decided(
            AuditResult result, Optional<DecisionReason> reason, long policyNanos, long quotaNanos, long auditNanos) {
        int why = reason.map(r -> r.ordinal() + 1).orElse(0);
        Counter counter = decisions[result.ordinal()][why];
        if (counter == null) {
            // A race registers the same meter twice, which the registry answers with the one it has.
            counter = Counter.builder("warden.decisions")
                    .description("Authorization decisions, by result and reason.")
                    .tags(
                            "result",
                            result.wireName(),
                            "reason",
                            reason.map(Enum::name).orElse("NONE"))
                    .register(registry);
            decisions[result.ordinal()][why] = counter;
        }
        counter.increment();
        policy.record(policyNanos, TimeUnit.NANOSECONDS);
        if (quotaNanos > 0) {
            quota.record(quotaNanos, TimeUnit.NANOSECONDS);
        }
        audit.record(auditNanos, TimeUnit.NANOSECONDS);
    }

    private Timer phase(String name) {
        return Timer.builder("warden.authorize.phase")
                .description("Time of each phase of POST /authorize: policy, quota round trip, audit acknowledgement.")
                .tag("phase", name)
                .serviceLevelObjectives(BUCKETS)
                .register(registry);
    }
}
