package dev.warden.api.http;

/** A group of routes mounted under one path, each declaring its access ({@link DeclaredRules}). */
@FunctionalInterface
public interface DeclaredService {
    /** Mounts the routes. */
    void routing(DeclaredRules rules);
}
