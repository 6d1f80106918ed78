package dev.warden.api.http;

/** A group of routes mounted under one path, each declaring its access ({@link DeclaredRules}). */
@FunctionalInterface
public interface DeclaredService {
    /** Mounts the routes. */
    void routing(DeclaredRules rules);

    /**
     * This service kept at an old path for old clients, now served under {@code successorMount}: each answer
     * carries {@code Deprecation} and a {@code Link} to its new path ({@link DeclaredRules#movedTo}).
     */
    default DeclaredService movedTo(String successorMount) {
        return rules -> routing(rules.movedTo(successorMount));
    }
}
