package dev.warden.api.organizations;

import java.util.Set;

/** A role of an organization: a built-in one ({@code owner}, {@code admin}, {@code member}) or a custom one. */
public record Role(String name, Set<String> permissions, boolean builtIn) {
    public Role {
        permissions = Set.copyOf(permissions);
    }
}
