package dev.warden.authorizer.bench;

import com.cedarpolicy.AuthorizationEngine;
import com.cedarpolicy.BasicAuthorizationEngine;
import com.cedarpolicy.model.AuthorizationRequest;
import com.cedarpolicy.model.AuthorizationResponse;
import com.cedarpolicy.model.entity.Entity;
import com.cedarpolicy.model.exception.AuthException;
import com.cedarpolicy.model.policy.PolicySet;
import com.cedarpolicy.value.EntityTypeName;
import com.cedarpolicy.value.EntityUID;
import com.cedarpolicy.value.PrimString;
import com.cedarpolicy.value.Value;
import dev.warden.authorizer.engine.CompiledPolicy;
import java.util.Map;
import java.util.Set;
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
 * Cedar (cedar-java, native evaluator through JNI) deciding the same three calls on the equivalent policy set
 * ({@link BenchPolicy#cedar()}). The policy set is parsed once and cached on the native side
 * ({@link PolicySet#cache()}), the request and entities are built once; each call still pays what every
 * cedar-java caller pays: JSON serialization of the request, the JNI crossing and the response parsing.
 */
@BenchmarkMode({Mode.SampleTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class CedarBench {
    @Param({"direct", "chain", "miss"})
    public String scenario;

    private AuthorizationEngine engine;
    private PolicySet policies;
    private AuthorizationRequest request;
    private Set<Entity> entities;

    @Setup
    public void setUp() throws Exception {
        engine = new BasicAuthorizationEngine();
        policies = PolicySet.parsePolicies(BenchPolicy.cedar());
        if (policies.getNumPolicies() != 104) {
            throw new IllegalStateException("expected 104 Cedar policies, got " + policies.getNumPolicies());
        }
        policies.cache();

        // Every baseline must decide exactly as Warden does before it is measured.
        CompiledPolicy warden = BenchPolicy.warden();
        for (String[] probe : BenchPolicy.probes()) {
            boolean expected = warden.firstMatch(probe[0], probe[1]).isPresent();
            boolean actual = allowed(engine.isAuthorized(request(probe[0], probe[1]), policies, entities(probe[1])));
            if (actual != expected) {
                throw new IllegalStateException("Cedar and Warden disagree on " + probe[0] + " " + probe[1] + ": Cedar "
                        + actual + ", Warden " + expected);
            }
        }

        BenchPolicy.Query query = BenchPolicy.Query.of(scenario);
        request = request(query.action, query.resource);
        entities = entities(query.resource);
        if (allowed(engine.isAuthorized(request, policies, entities)) != query.allowed) {
            throw new IllegalStateException(scenario + ": Cedar did not decide allowed=" + query.allowed);
        }
    }

    @Benchmark
    public boolean isAuthorized() throws AuthException {
        return allowed(engine.isAuthorized(request, policies, entities));
    }

    private static boolean allowed(AuthorizationResponse response) {
        return response.success
                .orElseThrow(() -> new IllegalStateException("Cedar failed: " + response))
                .isAllowed();
    }

    private static AuthorizationRequest request(String action, String resource) {
        return new AuthorizationRequest(
                uid("Agent", BenchPolicy.AGENT),
                uid("Action", action),
                uid("Resource", resource),
                Map.<String, Value>of());
    }

    private static Set<Entity> entities(String resource) {
        return Set.of(new Entity(uid("Resource", resource), Map.of("path", new PrimString(resource)), Set.of()));
    }

    private static EntityUID uid(String type, String id) {
        return EntityTypeName.parse(type).orElseThrow().of(id);
    }
}
