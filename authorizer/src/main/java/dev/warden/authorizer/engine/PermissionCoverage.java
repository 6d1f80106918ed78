package dev.warden.authorizer.engine;

import dev.warden.authorizer.domain.Permission;

/**
 * The subset relation between permissions, used to check that a delegation passes on only what its source
 * holds (SPEC: Delegation, "subset of the source's").
 *
 * <p>Constraints play no part: a delegated grant always carries its parent's constraints as well as its own
 * (see {@link EffectiveGrant#delegate}), so it can never escape the parent's budget.
 */
public final class PermissionCoverage {
    private PermissionCoverage() {}

    /**
     * True when {@code source} alone allows every call {@code delegated} allows: its pattern covers the
     * delegated pattern ({@link CompiledPattern#covers(CompiledPattern)}) and its actions cover the delegated
     * actions ({@link ActionSet#covers(ActionSet)}).
     *
     * <p>Coverage by the union of several grants does not count; requiring one covering grant gives every
     * delegated grant exactly one parent and so one well-defined chain of constraints.
     */
    public static boolean covers(Permission source, Permission delegated) {
        return CompiledPattern.compile(source.resource()).covers(CompiledPattern.compile(delegated.resource()))
                && ActionSet.of(source.actions()).covers(ActionSet.of(delegated.actions()));
    }
}
