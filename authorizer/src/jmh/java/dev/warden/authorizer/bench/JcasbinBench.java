package dev.warden.authorizer.bench;

import dev.warden.authorizer.engine.CompiledPolicy;
import java.util.concurrent.TimeUnit;
import org.casbin.jcasbin.main.Enforcer;
import org.casbin.jcasbin.model.Model;
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
 * jCasbin deciding the same three calls with an ACL model that matches the resource with {@code keyMatch}
 * ({@link BenchPolicy#CASBIN_MODEL}) over one policy line per grant. A plain {@link Enforcer}: no decision cache.
 */
@BenchmarkMode({Mode.SampleTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class JcasbinBench {
    @Param({"direct", "chain", "miss"})
    public String scenario;

    private Enforcer enforcer;
    private String subject;
    private String action;
    private String resource;

    @Setup
    public void setUp() {
        enforcer = new Enforcer(Model.newModelFromString(BenchPolicy.CASBIN_MODEL));
        enforcer.enableLog(false);
        for (BenchPolicy.Rule rule : BenchPolicy.rules()) {
            enforcer.addPolicy(BenchPolicy.AGENT, rule.resource(), rule.action());
        }
        if (enforcer.getPolicy().size() != 104) {
            throw new IllegalStateException(
                    "expected 104 jCasbin lines, got " + enforcer.getPolicy().size());
        }

        CompiledPolicy warden = BenchPolicy.warden();
        for (String[] probe : BenchPolicy.probes()) {
            boolean expected = warden.firstMatch(probe[0], probe[1]).isPresent();
            boolean actual = enforcer.enforce(BenchPolicy.AGENT, probe[1], probe[0]);
            if (actual != expected) {
                throw new IllegalStateException("jCasbin and Warden disagree on " + probe[0] + " " + probe[1]
                        + ": jCasbin " + actual + ", Warden " + expected);
            }
        }

        BenchPolicy.Query query = BenchPolicy.Query.of(scenario);
        subject = BenchPolicy.AGENT;
        action = query.action;
        resource = query.resource;
        if (enforcer.enforce(subject, resource, action) != query.allowed) {
            throw new IllegalStateException(scenario + ": jCasbin did not decide allowed=" + query.allowed);
        }
    }

    @Benchmark
    public boolean enforce() {
        return enforcer.enforce(subject, resource, action);
    }
}
