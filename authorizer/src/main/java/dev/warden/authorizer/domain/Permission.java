package dev.warden.authorizer.domain;

import java.util.List;

/**
 * A grant: the {@code actions} an agent may perform on resources matching {@code resource}.
 *
 * <p>{@code resource} is a pattern of {@code :}-separated, non-empty segments; a last segment {@code *}
 * matches one or more further segments, a bare {@code *} matches every resource. Actions are names or
 * {@code *} for any action. See {@link ResourcePattern} for the grammar.
 */
public record Permission(String resource, List<String> actions, Constraints constraints) {
    public Permission {
        ResourcePattern.requireValid(resource);
        actions = List.copyOf(actions);
        if (actions.isEmpty()) {
            throw new IllegalArgumentException("actions must not be empty");
        }
        for (String action : actions) {
            if (action.isBlank()) {
                throw new IllegalArgumentException("actions must not contain a blank name");
            }
        }
    }

    /** An unconstrained permission. */
    public static Permission of(String resource, String... actions) {
        return new Permission(resource, List.of(actions), Constraints.NONE);
    }
}
