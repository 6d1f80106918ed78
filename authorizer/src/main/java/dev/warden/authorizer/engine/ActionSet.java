package dev.warden.authorizer.engine;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The actions of one grant, compiled for matching: a set of names, or any action when it contains
 * {@value #ANY}.
 *
 * <p>Names compare exactly (case-sensitive, no trimming). Immutable and thread-safe;
 * {@link #allows(String)} allocates nothing.
 */
public final class ActionSet {
    /** The action name that stands for every action. */
    public static final String ANY = "*";

    private final boolean any;
    /** Distinct names, sorted; may include {@value #ANY}. */
    private final String[] names;

    private ActionSet(boolean any, String[] names) {
        this.any = any;
        this.names = names;
    }

    /**
     * Compiles a grant's actions.
     *
     * @throws IllegalArgumentException when {@code actions} is empty or holds a blank name
     */
    public static ActionSet of(Collection<String> actions) {
        if (actions.isEmpty()) {
            throw new IllegalArgumentException("actions must not be empty");
        }
        TreeSet<String> distinct = new TreeSet<>();
        for (String action : actions) {
            if (action.isBlank()) {
                throw new IllegalArgumentException("actions must not contain a blank name");
            }
            distinct.add(action);
        }
        return new ActionSet(distinct.contains(ANY), distinct.toArray(String[]::new));
    }

    /** Compiles a grant's actions; see {@link #of(Collection)}. */
    public static ActionSet of(String... actions) {
        return of(Arrays.asList(actions));
    }

    /** True when a call naming {@code action} is allowed: the set holds {@value #ANY} or the name itself. */
    public boolean allows(String action) {
        if (any) {
            return true;
        }
        for (String name : names) {
            if (name.equals(action)) {
                return true;
            }
        }
        return false;
    }

    /**
     * True when every action allowed by {@code delegated} is allowed by this set: each delegated name is
     * here, or this set holds {@value #ANY}. A delegated {@value #ANY} is covered only by {@value #ANY}.
     */
    public boolean covers(ActionSet delegated) {
        if (any) {
            return true;
        }
        if (delegated.any) {
            return false;
        }
        for (String name : delegated.names) {
            if (!allows(name)) {
                return false;
            }
        }
        return true;
    }

    /** True when the set allows every action. */
    public boolean isAny() {
        return any;
    }

    /** The distinct names, sorted. */
    public List<String> names() {
        return List.of(names);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ActionSet other && Arrays.equals(other.names, names);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(names);
    }

    @Override
    public String toString() {
        return Arrays.toString(names);
    }
}
