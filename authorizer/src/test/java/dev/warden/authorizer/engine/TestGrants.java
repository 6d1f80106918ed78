package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Constraints;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Permission;
import java.util.Collection;
import java.util.List;

/** Fixture factories for engine tests. */
final class TestGrants {
    static final AgentId ALICE = AgentId.of("agt_alice");
    static final AgentId BOB = AgentId.of("agt_bob");
    static final AgentId CAROL = AgentId.of("agt_carol");
    static final DelegationId ALICE_TO_BOB = DelegationId.of("dlg_alice_bob");
    static final DelegationId BOB_TO_CAROL = DelegationId.of("dlg_bob_carol");

    private TestGrants() {}

    static Permission permission(String resource, String... actions) {
        return Permission.of(resource, actions);
    }

    static Permission limited(long maxCallsPerHour, String resource, String... actions) {
        return new Permission(resource, List.of(actions), Constraints.maxCallsPerHour(maxCallsPerHour));
    }

    /** An unconstrained grant listed on Alice. */
    static EffectiveGrant aliceGrant(String resource, String... actions) {
        return EffectiveGrant.direct(ALICE, permission(resource, actions));
    }

    /** A constrained grant listed on Alice. */
    static EffectiveGrant aliceLimited(long maxCallsPerHour, String resource, String... actions) {
        return EffectiveGrant.direct(ALICE, limited(maxCallsPerHour, resource, actions));
    }

    static CompiledPolicy policyOf(EffectiveGrant... grants) {
        return CompiledPolicy.compile(List.of(grants));
    }

    static List<String> resourcesOf(Collection<EffectiveGrant> grants) {
        return grants.stream().map(g -> g.permission().resource()).toList();
    }
}
