package dev.warden.authorizer.engine;

import static dev.warden.authorizer.engine.TestGrants.ALICE;
import static dev.warden.authorizer.engine.TestGrants.ALICE_TO_BOB;
import static dev.warden.authorizer.engine.TestGrants.BOB;
import static dev.warden.authorizer.engine.TestGrants.BOB_TO_CAROL;
import static dev.warden.authorizer.engine.TestGrants.CAROL;
import static dev.warden.authorizer.engine.TestGrants.limited;
import static dev.warden.authorizer.engine.TestGrants.permission;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

import dev.warden.authorizer.domain.DelegationId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EffectiveGrantTest {

    @Test
    void unconstrainedDirectGrantCarriesNoConstraint() {
        EffectiveGrant grant = EffectiveGrant.direct(ALICE, permission("mcp:github:*", "read"));

        assertThat(grant.isConstrained()).isFalse();
        assertThat(grant.constraints()).isEmpty();
        assertThat(grant.depth()).isZero();
        assertThat(grant.origin()).isEqualTo(new GrantOrigin.Direct(ALICE));
    }

    @Test
    void constrainedDirectGrantCarriesItsOwnStepOwnedByTheAgent() {
        EffectiveGrant grant = EffectiveGrant.direct(ALICE, limited(100, "mcp:github:*", "read"));

        assertThat(grant.isConstrained()).isTrue();
        assertThat(grant.constraints()).singleElement().satisfies(step -> {
            assertThat(step.origin()).isEqualTo(new GrantOrigin.Direct(ALICE));
            assertThat(step.maxCallsPerHour()).isEqualTo(100);
        });
    }

    @Test
    void delegatedGrantCarriesItsOwnConstraintThenEveryAncestorsNearestFirst() {
        EffectiveGrant alice = EffectiveGrant.direct(ALICE, limited(100, "mcp:github:*", "read", "write"));
        EffectiveGrant bob = alice.delegate(ALICE_TO_BOB, BOB, limited(10, "mcp:github:issues:*", "read"));
        EffectiveGrant carol = bob.delegate(BOB_TO_CAROL, CAROL, limited(3, "mcp:github:issues:42", "read"));

        assertThat(carol.constraints())
                .extracting(ConstrainedStep::origin, ConstrainedStep::maxCallsPerHour)
                .containsExactly(
                        tuple(new GrantOrigin.Delegated(BOB_TO_CAROL, CAROL), 3L),
                        tuple(new GrantOrigin.Delegated(ALICE_TO_BOB, BOB), 10L),
                        tuple(new GrantOrigin.Direct(ALICE), 100L));
        assertThat(carol.constraints().get(2)).isEqualTo(alice.constraints().get(0));
    }

    @Test
    void delegatedGrantWithoutItsOwnLimitIsStillConstrainedByItsParent() {
        EffectiveGrant alice = EffectiveGrant.direct(ALICE, limited(100, "mcp:github:*", "read"));
        EffectiveGrant bob = alice.delegate(ALICE_TO_BOB, BOB, permission("mcp:github:issues", "read"));

        assertThat(bob.permission().constraints().isEmpty()).isTrue();
        assertThat(bob.isConstrained()).isTrue();
        assertThat(bob.constraints()).containsExactlyElementsOf(alice.constraints());
    }

    @Test
    void unconstrainedChainStaysUnconstrained() {
        EffectiveGrant alice = EffectiveGrant.direct(ALICE, permission("mcp:*", "*"));
        EffectiveGrant carol = alice.delegate(ALICE_TO_BOB, BOB, permission("mcp:github:*", "read"))
                .delegate(BOB_TO_CAROL, CAROL, permission("mcp:github:issues", "read"));

        assertThat(carol.isConstrained()).isFalse();
    }

    @Test
    void depthIsOneForADirectDelegationAndGrowsAlongTheChain() {
        EffectiveGrant alice = EffectiveGrant.direct(ALICE, permission("*", "*"));
        EffectiveGrant bob = alice.delegate(ALICE_TO_BOB, BOB, permission("db:*", "read"));
        EffectiveGrant carol = bob.delegate(BOB_TO_CAROL, CAROL, permission("db:orders", "read"));

        assertThat(List.of(alice.depth(), bob.depth(), carol.depth())).containsExactly(0, 1, 2);
        assertThat(carol.origin().holder()).isEqualTo(CAROL);
    }

    @Test
    void delegatingMoreThanTheParentHoldsIsRejected() {
        EffectiveGrant alice = EffectiveGrant.direct(ALICE, permission("mcp:github:issues:*", "read"));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> alice.delegate(ALICE_TO_BOB, BOB, permission("mcp:github:*", "read")));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> alice.delegate(ALICE_TO_BOB, BOB, permission("mcp:github:issues:1", "write")));
    }

    @Test
    void depthMustAgreeWithTheOrigin() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new EffectiveGrant(
                        new GrantOrigin.Direct(ALICE),
                        permission("a", "r"),
                        1,
                        List.of(),
                        List.of(),
                        List.of(),
                        List.of(),
                        Optional.empty()));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new EffectiveGrant(
                        new GrantOrigin.Delegated(ALICE_TO_BOB, BOB),
                        permission("a", "r"),
                        0,
                        List.of(),
                        List.of(),
                        List.of(),
                        List.of(),
                        Optional.of(new GrantOrigin.Direct(ALICE))));
    }

    @Test
    void counterKeyIgnoresTheLimitAndTheOrderOfActions() {
        ConstrainedStep a =
                new ConstrainedStep(new GrantOrigin.Direct(ALICE), limited(10, "mcp:github:*", "write", "read"));
        ConstrainedStep b =
                new ConstrainedStep(new GrantOrigin.Direct(ALICE), limited(99, "mcp:github:*", "read", "write"));

        assertThat(a.counterKey()).isEqualTo(b.counterKey()).isEqualTo("agent:agt_alice|4:read5:write|mcp:github:*");
    }

    @Test
    void counterKeySeparatesOriginsActionsAndResources() {
        GrantOrigin alice = new GrantOrigin.Direct(ALICE);
        String base = new ConstrainedStep(alice, limited(10, "db:x", "a", "b")).counterKey();

        assertThat(List.of(
                        new ConstrainedStep(new GrantOrigin.Direct(BOB), limited(10, "db:x", "a", "b")).counterKey(),
                        new ConstrainedStep(
                                        new GrantOrigin.Delegated(DelegationId.of("agt_alice"), BOB),
                                        limited(10, "db:x", "a", "b"))
                                .counterKey(),
                        new ConstrainedStep(alice, limited(10, "db:x", "a")).counterKey(),
                        new ConstrainedStep(alice, limited(10, "db:x", "1:a1:b")).counterKey(),
                        new ConstrainedStep(alice, limited(10, "db:y", "a", "b")).counterKey()))
                .doesNotContain(base)
                .doesNotHaveDuplicates();
    }

    @Test
    void constrainedStepNeedsALimit() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new ConstrainedStep(new GrantOrigin.Direct(ALICE), permission("db:x", "read")));
    }
}
