package dev.warden.api.auth;

import dev.warden.authorizer.domain.Agent;
import java.util.Optional;

/**
 * Where authentication finds the agent a token belongs to. Implemented by the agents' repository, so that
 * {@code auth} does not depend on {@code agents} (which depends on {@code auth} for the caller).
 */
public interface AgentTokens {
    /** The agent whose current token has this SHA-256 hash, whatever its status. */
    Optional<Agent> findByTokenHash(byte[] tokenHash);
}
