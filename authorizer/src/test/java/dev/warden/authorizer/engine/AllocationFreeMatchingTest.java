package dev.warden.authorizer.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Checks the hot-path promise: matching a call allocates nothing, even before the JIT gets involved. */
class AllocationFreeMatchingTest {
    private static final int CALLS = 200_000;

    @Test
    void firstMatchAllocatesNothingPerCall() {
        com.sun.management.ThreadMXBean threads = allocationCounter();
        Random random = new Random(1);
        CompiledPolicy policy = CompiledPolicy.compile(CompiledPolicyTest.randomGrants(random, 100));
        String[] actions = new String[1024];
        String[] resources = new String[1024];
        for (int i = 0; i < resources.length; i++) {
            actions[i] = CompiledPolicyTest.randomAction(random);
            resources[i] = CompiledPolicyTest.randomResource(random);
        }
        int found = run(policy, actions, resources);

        long before = threads.getCurrentThreadAllocatedBytes();
        found += run(policy, actions, resources);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(found).isPositive();
        // a single 16-byte Optional per call would be 3.2 MB; allow slack for the measuring itself
        assertThat(allocated).isLessThan(CALLS / 10);
    }

    private static int run(CompiledPolicy policy, String[] actions, String[] resources) {
        int found = 0;
        for (int i = 0; i < CALLS; i++) {
            int k = i & (resources.length - 1);
            if (policy.firstMatch(actions[k], resources[k]).isPresent()) {
                found++;
            }
        }
        return found;
    }

    private static com.sun.management.ThreadMXBean allocationCounter() {
        var bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "allocation counting needs HotSpot");
        var threads = (com.sun.management.ThreadMXBean) bean;
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        threads.getCurrentThreadAllocatedBytes();
        return threads;
    }
}
