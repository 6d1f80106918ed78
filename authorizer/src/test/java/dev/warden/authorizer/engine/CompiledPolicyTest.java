package dev.warden.authorizer.engine;

import static dev.warden.authorizer.engine.TestGrants.ALICE;
import static dev.warden.authorizer.engine.TestGrants.ALICE_TO_BOB;
import static dev.warden.authorizer.engine.TestGrants.BOB;
import static dev.warden.authorizer.engine.TestGrants.aliceGrant;
import static dev.warden.authorizer.engine.TestGrants.aliceLimited;
import static dev.warden.authorizer.engine.TestGrants.limited;
import static dev.warden.authorizer.engine.TestGrants.permission;
import static dev.warden.authorizer.engine.TestGrants.policyOf;
import static dev.warden.authorizer.engine.TestGrants.resourcesOf;
import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.authorizer.domain.Condition;
import dev.warden.authorizer.domain.Constraints;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Permission;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CompiledPolicyTest {

    @Test
    void unconstrainedGrantsAreTriedBeforeConstrainedOnes() {
        CompiledPolicy policy = policyOf(aliceLimited(10, "mcp:github:issues:42", "read"), aliceGrant("*", "read"));

        assertThat(resourcesOf(policy.grants())).containsExactly("*", "mcp:github:issues:42");
        assertThat(policy.firstMatch("read", "mcp:github:issues:42"))
                .hasValueSatisfying(g -> assertThat(g.isConstrained()).isFalse());
    }

    @Test
    void grantsWithMoreLiteralSegmentsAreTriedFirst() {
        CompiledPolicy policy = policyOf(
                aliceGrant("*", "read"),
                aliceGrant("mcp:*", "read"),
                aliceGrant("mcp:github:issues:*", "read"),
                aliceGrant("mcp:github:*", "read"));

        assertThat(resourcesOf(policy.matches("read", "mcp:github:issues:42")))
                .containsExactly("mcp:github:issues:*", "mcp:github:*", "mcp:*", "*");
    }

    @Test
    void exactPatternIsTriedBeforeWildcardWithTheSameLiteralSegments() {
        CompiledPolicy policy = policyOf(
                aliceGrant("mcp:github:issues:*", "read"),
                aliceGrant("mcp:github:issues", "read"),
                aliceGrant("mcp:github:*", "read"));

        assertThat(resourcesOf(policy.grants()))
                .containsExactly("mcp:github:issues", "mcp:github:issues:*", "mcp:github:*");
    }

    @Test
    void patternTextBreaksRemainingTiesLexicographically() {
        CompiledPolicy policy = policyOf(
                aliceGrant("mcp:zeta:*", "read"), aliceGrant("db:orders:*", "read"), aliceGrant("mcp:alpha:*", "read"));

        assertThat(resourcesOf(policy.grants())).containsExactly("db:orders:*", "mcp:alpha:*", "mcp:zeta:*");
    }

    @Test
    void constrainedGrantsFollowTheSameSpecificityOrderAmongThemselves() {
        CompiledPolicy policy = policyOf(
                aliceLimited(1000, "mcp:*", "read"),
                aliceLimited(10, "mcp:github:issues", "read"),
                aliceLimited(100, "mcp:github:*", "read"),
                aliceGrant("db:*", "read"));

        assertThat(resourcesOf(policy.grants())).containsExactly("db:*", "mcp:github:issues", "mcp:github:*", "mcp:*");
        assertThat(policy.matches("read", "mcp:github:issues"))
                .extracting(g -> g.constraints().get(0).maxCallsPerHour())
                .containsExactly(10L, 100L, 1000L);
    }

    @Test
    void samePatternIsOrderedByFewerConstraintStepsThenByGrantKey() {
        EffectiveGrant aliceWide = EffectiveGrant.direct(ALICE, limited(100, "mcp:*", "read", "write"));
        EffectiveGrant bobRead = EffectiveGrant.direct(BOB, limited(5, "mcp:github:*", "read"));
        EffectiveGrant bobWrite = EffectiveGrant.direct(BOB, limited(5, "mcp:github:*", "write"));
        EffectiveGrant bobDelegated = aliceWide.delegate(ALICE_TO_BOB, BOB, permission("mcp:github:*", "read"));
        // two steps (its own and Alice's), although its key ("delegation:dlg_aaa|...") sorts before the others'
        EffectiveGrant bobTwoSteps =
                aliceWide.delegate(DelegationId.of("dlg_aaa"), BOB, limited(3, "mcp:github:*", "read"));

        CompiledPolicy policy = CompiledPolicy.compile(List.of(bobTwoSteps, bobDelegated, bobWrite, bobRead));

        assertThat(bobTwoSteps.key()).isLessThan(bobDelegated.key());
        assertThat(policy.grants()).containsExactly(bobRead, bobWrite, bobDelegated, bobTwoSteps);
    }

    @Test
    void orderDependsOnlyOnTheSetOfGrantsNotOnInputOrder() {
        List<EffectiveGrant> grants = randomGrants(new Random(7), 100);
        List<EffectiveGrant> expected = CompiledPolicy.compile(grants).grants();

        Random shuffler = new Random(11);
        for (int i = 0; i < 20; i++) {
            List<EffectiveGrant> shuffled = new ArrayList<>(grants);
            Collections.shuffle(shuffled, shuffler);
            assertThat(CompiledPolicy.compile(shuffled).grants()).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void firstMatchIsTheFirstGrantInOrderThatAllowsBothActionAndResource() {
        CompiledPolicy policy = policyOf(
                aliceGrant("mcp:github:issues", "write"),
                aliceGrant("mcp:github:*", "read"),
                aliceGrant("mcp:*", "read", "write"));

        assertThat(policy.firstMatch("read", "mcp:github:issues")
                        .map(g -> g.permission().resource()))
                .contains("mcp:github:*");
        assertThat(policy.firstMatch("write", "mcp:github:issues")
                        .map(g -> g.permission().resource()))
                .contains("mcp:github:issues");
        assertThat(policy.firstMatch("write", "mcp:github:prs")
                        .map(g -> g.permission().resource()))
                .contains("mcp:*");
    }

    @Test
    void matchesListsEveryAllowingGrantInOrderAndStartsWithFirstMatch() {
        CompiledPolicy policy = policyOf(
                aliceLimited(50, "mcp:github:*", "read"),
                aliceLimited(5, "mcp:github:issues:*", "read"),
                aliceGrant("mcp:github:issues:*", "write"),
                aliceGrant("db:*", "read"));

        List<EffectiveGrant> matches = policy.matches("read", "mcp:github:issues:7");

        assertThat(resourcesOf(matches)).containsExactly("mcp:github:issues:*", "mcp:github:*");
        assertThat(policy.firstMatch("read", "mcp:github:issues:7")).contains(matches.get(0));
    }

    @Test
    void grantWithWildcardActionAllowsAnyActionAndNamedGrantOnlyItsOwn() {
        CompiledPolicy policy = policyOf(aliceGrant("mcp:github:*", "*"), aliceGrant("db:orders", "read"));

        assertThat(policy.firstMatch("delete", "mcp:github:repo")).isPresent();
        assertThat(policy.firstMatch("read", "db:orders")).isPresent();
        assertThat(policy.firstMatch("write", "db:orders")).isEmpty();
    }

    @Test
    void callThatNoGrantAllowsHasNoMatch() {
        CompiledPolicy policy = policyOf(aliceGrant("mcp:github:*", "read"));

        assertThat(policy.firstMatch("read", "mcp:github")).isEmpty();
        assertThat(policy.firstMatch("read", "mcp:gitlab:x")).isEmpty();
        assertThat(policy.firstMatch("write", "mcp:github:x")).isEmpty();
        assertThat(policy.matches("read", "unknown:thing")).isEmpty();
    }

    @Test
    void bareStarGrantMatchesResourcesWhoseFirstSegmentNoOtherGrantUses() {
        CompiledPolicy policy = policyOf(aliceGrant("mcp:github:*", "read"), aliceLimited(3, "*", "read"));

        assertThat(resourcesOf(policy.matches("read", "fs:tmp:x"))).containsExactly("*");
        assertThat(resourcesOf(policy.matches("read", "fs"))).containsExactly("*");
        assertThat(resourcesOf(policy.matches("read", "mcp:github:x"))).containsExactly("mcp:github:*", "*");
    }

    @Test
    void emptyPolicyAllowsNothing() {
        assertThat(CompiledPolicy.empty().firstMatch("read", "a")).isEmpty();
        assertThat(CompiledPolicy.compile(List.of()).matches("read", "a:b")).isEmpty();
        assertThat(CompiledPolicy.empty().size()).isZero();
    }

    @Test
    void duplicateGrantsAreKeptOnce() {
        CompiledPolicy policy = policyOf(aliceGrant("db:*", "read"), aliceGrant("db:*", "read"));

        assertThat(policy.size()).isEqualTo(1);
        assertThat(policy.matches("read", "db:x")).hasSize(1);
    }

    @Test
    void ofDirectCompilesAnAgentsOwnPermissions() {
        CompiledPolicy policy = CompiledPolicy.ofDirect(ALICE, List.of(permission("db:*", "read")));

        assertThat(policy.firstMatch("read", "db:x"))
                .hasValueSatisfying(g -> assertThat(g.origin()).isEqualTo(new GrantOrigin.Direct(ALICE)));
    }

    @Test
    void coveringGrantPrefersAnUnconstrainedParent() {
        EffectiveGrant limitedNarrow = aliceLimited(5, "mcp:github:*", "read");
        EffectiveGrant freeWide = aliceGrant("mcp:*", "read", "write");
        CompiledPolicy policy = policyOf(limitedNarrow, freeWide);

        assertThat(policy.coveringGrant(permission("mcp:github:issues", "read")))
                .contains(freeWide);
    }

    @Test
    void coveringGrantPrefersTheMostSpecificAmongConstrainedParents() {
        EffectiveGrant wide = aliceLimited(500, "mcp:*", "read");
        EffectiveGrant narrow = aliceLimited(5, "mcp:github:*", "read");
        CompiledPolicy policy = policyOf(wide, narrow);

        assertThat(policy.coveringGrant(permission("mcp:github:issues", "read")))
                .contains(narrow);
    }

    @Test
    void coveringGrantIsEmptyWhenOnlyTheUnionOfGrantsCovers() {
        CompiledPolicy policy = policyOf(aliceGrant("mcp:github:*", "read"), aliceGrant("mcp:github:*", "write"));

        assertThat(policy.coveringGrant(permission("mcp:github:issues", "read", "write")))
                .isEmpty();
        assertThat(policy.coveringGrant(permission("mcp:*", "read"))).isEmpty();
        assertThat(policy.coveringGrant(permission("mcp:github:issues", "write")))
                .isPresent();
    }

    @Test
    void whenFirstMatchIsConstrainedEveryMatchIsConstrained() {
        Random random = new Random(3);
        for (int round = 0; round < 50; round++) {
            CompiledPolicy policy = CompiledPolicy.compile(randomGrants(random, 30));
            for (int i = 0; i < 200; i++) {
                String action = randomAction(random);
                String resource = randomResource(random);
                List<EffectiveGrant> matches = policy.matches(action, resource);
                if (!matches.isEmpty() && matches.get(0).isConstrained()) {
                    assertThat(matches).allMatch(EffectiveGrant::isConstrained);
                }
            }
        }
    }

    @Test
    void whenFirstMatchIsRestrictedEveryMatchIsRestricted() {
        Random random = new Random(5);
        for (int round = 0; round < 50; round++) {
            List<EffectiveGrant> grants = new ArrayList<>(randomGrants(random, 20));
            for (EffectiveGrant g : randomGrants(random, 10)) {
                Permission p = g.permission();
                Constraints conditional = new Constraints(
                        p.constraints().maxCallsPerHour(), Optional.of(Condition.when("arguments.n < " + round)));
                grants.add(EffectiveGrant.direct(
                        g.origin().holder(), new Permission(p.resource(), p.actions(), conditional)));
            }
            CompiledPolicy policy = CompiledPolicy.compile(grants);
            for (int i = 0; i < 200; i++) {
                List<EffectiveGrant> matches = policy.matches(randomAction(random), randomResource(random));
                if (!matches.isEmpty() && !matches.get(0).isUnrestricted()) {
                    assertThat(matches).noneMatch(EffectiveGrant::isUnrestricted);
                }
                // Among the restricted, a grant without a budget comes before every grant with one.
                boolean budgetSeen = false;
                for (EffectiveGrant match : matches) {
                    assertThat(budgetSeen && !match.isConstrained()).isFalse();
                    budgetSeen |= match.isConstrained();
                }
            }
        }
    }

    @Test
    void aConditionalGrantIsTriedAfterAnUnrestrictedOneEvenWhenNarrower() {
        EffectiveGrant narrowConditional = EffectiveGrant.direct(
                ALICE,
                new Permission("mcp:github:issues", List.of("read"), Constraints.condition(Condition.when("true"))));
        EffectiveGrant broadFree = EffectiveGrant.direct(ALICE, permission("mcp:*", "read"));
        CompiledPolicy policy = CompiledPolicy.compile(List.of(narrowConditional, broadFree));
        assertThat(policy.firstMatch("read", "mcp:github:issues")).contains(broadFree);
        assertThat(policy.matches("read", "mcp:github:issues")).containsExactly(broadFree, narrowConditional);
    }

    @Test
    void hundredPermissionPolicyAgreesWithANaiveReference() {
        Random random = new Random(42);
        List<EffectiveGrant> grants = randomGrants(random, 100);
        CompiledPolicy policy = CompiledPolicy.compile(grants);
        assertThat(policy.size()).isGreaterThan(80);

        int calls = 20_000;
        int allowed = 0;
        for (int i = 0; i < calls; i++) {
            String action = randomAction(random);
            String resource = randomResource(random);
            List<EffectiveGrant> expected = policy.grants().stream()
                    .filter(g -> NaiveMatcher.allows(g.permission(), action, resource))
                    .toList();

            List<EffectiveGrant> actual = policy.matches(action, resource);

            assertThat(actual).as("%s %s", action, resource).containsExactlyElementsOf(expected);
            assertThat(actual).isSortedAccordingTo(NaiveMatcher.DOCUMENTED_ORDER);
            assertThat(policy.firstMatch(action, resource))
                    .isEqualTo(expected.stream().findFirst());
            allowed += expected.isEmpty() ? 0 : 1;
        }
        // the generator must exercise both outcomes, or this test proves little
        assertThat(allowed).isBetween(calls / 10, calls - calls / 10);
    }

    @Test
    void hundredPermissionPolicyIsSortedInTheDocumentedOrder() {
        CompiledPolicy policy = CompiledPolicy.compile(randomGrants(new Random(5), 100));

        assertThat(policy.grants()).isSortedAccordingTo(NaiveMatcher.DOCUMENTED_ORDER);
    }

    private static final String[] FIRST = {"mcp", "db", "fs", "api"};
    private static final String[] SECOND = {"github", "gitlab", "orders", "tmp"};
    private static final String[] DEEPER = {"issues", "prs", "42", "7", "x"};
    private static final String[] ACTIONS = {"read", "write", "export", "delete"};

    static List<EffectiveGrant> randomGrants(Random random, int count) {
        List<EffectiveGrant> grants = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            boolean everything = random.nextInt(40) == 0;
            String resource = everything ? "*" : randomPattern(random);
            // a bare * grant allows one action only, so that some calls stay denied
            List<String> actions = everything
                    ? List.of("delete")
                    : random.nextInt(8) == 0
                            ? List.of("*")
                            : List.of(ACTIONS[random.nextInt(ACTIONS.length)], ACTIONS[random.nextInt(ACTIONS.length)]);
            String[] names = actions.toArray(String[]::new);
            Permission granted = random.nextInt(3) == 0
                    ? limited(1 + random.nextInt(100), resource, names)
                    : permission(resource, names);
            grants.add(EffectiveGrant.direct(random.nextBoolean() ? ALICE : BOB, granted));
        }
        return grants;
    }

    private static String randomPattern(Random random) {
        String resource = randomResource(random);
        return random.nextInt(2) == 0 ? resource : resource + ":*";
    }

    static String randomResource(Random random) {
        StringBuilder out = new StringBuilder(FIRST[random.nextInt(FIRST.length)]);
        int extra = random.nextInt(4);
        if (extra > 0) {
            out.append(':').append(SECOND[random.nextInt(SECOND.length)]);
        }
        for (int i = 1; i < extra; i++) {
            out.append(':').append(DEEPER[random.nextInt(DEEPER.length)]);
        }
        return out.toString();
    }

    static String randomAction(Random random) {
        return ACTIONS[random.nextInt(ACTIONS.length)];
    }
}
