package dev.warden.authorizer.engine;

import java.util.Comparator;
import java.util.List;

/**
 * The order in which a {@link CompiledPolicy} tries grants; documented in the package overview.
 *
 * <ol>
 *   <li>unrestricted before restricted (a budget or a condition in the chain): a free grant is allowed at once;</li>
 *   <li>no approval before approval: a call another grant allows never waits for a person;</li>
 *   <li>unconstrained before constrained: a grant whose conditions hold never spends a budget when a grant without
 *       one matches too;</li>
 *   <li>more literal segments first: the narrowest grant spends its own budget before a broad one;</li>
 *   <li>exact before wildcard at the same number of literal segments;</li>
 *   <li>pattern text, lexicographically ({@link String#compareTo});</li>
 *   <li>then, to make the order total on content (equal grants are removed before sorting): fewer
 *       constraint steps first, the grant key (origin, actions), the constraint chain (counter keys and
 *       limits), the actions as listed, the holder, the depth, and the condition chain as written.</li>
 * </ol>
 */
final class GrantOrder {
    static final Comparator<CompiledGrant> ORDER = Comparator.comparing((CompiledGrant g) -> !g.grant.isUnrestricted())
            .thenComparing(g -> g.grant.requiresApproval())
            .thenComparing(g -> g.grant.isConstrained())
            .thenComparing(g -> g.pattern.literalSegments(), Comparator.reverseOrder())
            .thenComparing(g -> g.pattern.isWildcard())
            .thenComparing(g -> g.pattern.pattern())
            .thenComparingInt(g -> g.grant.constraints().size())
            .thenComparing(g -> g.grant.key())
            .thenComparing((a, b) -> compareChains(a.grant.constraints(), b.grant.constraints()))
            .thenComparing((a, b) -> compareNames(
                    a.grant.permission().actions(), b.grant.permission().actions()))
            .thenComparing(g -> g.grant.origin().holder())
            .thenComparingInt(g -> g.grant.depth())
            .thenComparing(g -> g.grant.conditions().toString())
            .thenComparing(g -> g.grant.approvals().toString());

    private GrantOrder() {}

    /** Lexicographic over steps of equal count (the count was compared before). */
    private static int compareChains(List<ConstrainedStep> a, List<ConstrainedStep> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int byKey = a.get(i).counterKey().compareTo(b.get(i).counterKey());
            if (byKey != 0) {
                return byKey;
            }
            int byLimit = Long.compare(a.get(i).maxCallsPerHour(), b.get(i).maxCallsPerHour());
            if (byLimit != 0) {
                return byLimit;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** Lexicographic over the actions as listed, so that grants differing only in that listing are ordered too. */
    private static int compareNames(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int byName = a.get(i).compareTo(b.get(i));
            if (byName != 0) {
                return byName;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
