package dev.warden.authorizer.bench;

import dev.warden.authorizer.engine.CompiledPolicy;
import dev.warden.authorizer.engine.EffectiveGrant;
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
 * Warden's hot path: {@link CompiledPolicy#firstMatch} on the agent of {@link BenchPolicy} (104 grants, all under
 * the first segment {@code mcp}, so the first-segment index does not narrow the candidates at all).
 */
@BenchmarkMode({Mode.SampleTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class WardenBench {
    @Param({"direct", "chain", "miss"})
    public String scenario;

    private CompiledPolicy policy;
    private String action;
    private String resource;

    @Setup
    public void setUp() {
        policy = BenchPolicy.warden();
        BenchPolicy.Query query = BenchPolicy.Query.of(scenario);
        action = query.action;
        resource = query.resource;
        Optional<EffectiveGrant> first = policy.firstMatch(action, resource);
        if (first.isPresent() != query.allowed) {
            throw new IllegalStateException(scenario + ": expected allowed=" + query.allowed + ", got " + first);
        }
        if (query == BenchPolicy.Query.CHAIN && first.orElseThrow().depth() != 3) {
            throw new IllegalStateException("chain: expected a depth-3 grant, got " + first);
        }
        if (query == BenchPolicy.Query.DIRECT && first.orElseThrow().depth() != 0) {
            throw new IllegalStateException("direct: expected a direct grant, got " + first);
        }
    }

    @Benchmark
    public Optional<EffectiveGrant> firstMatch() {
        return policy.firstMatch(action, resource);
    }
}
