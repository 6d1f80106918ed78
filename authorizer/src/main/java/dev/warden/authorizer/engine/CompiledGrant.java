package dev.warden.authorizer.engine;

import java.util.Optional;

/** One grant of a {@link CompiledPolicy}, with its pattern and actions compiled for the hot path. */
final class CompiledGrant {
    final EffectiveGrant grant;
    final CompiledPattern pattern;
    final ActionSet actions;
    /** Built once so that {@link CompiledPolicy#firstMatch} returns without allocating. */
    final Optional<EffectiveGrant> asOptional;

    CompiledGrant(EffectiveGrant grant) {
        this.grant = grant;
        this.pattern = CompiledPattern.compile(grant.permission().resource());
        this.actions = ActionSet.of(grant.permission().actions());
        this.asOptional = Optional.of(grant);
    }

    boolean matches(String action, String resource) {
        return pattern.matches(resource) && actions.allows(action);
    }
}
