package dev.warden.api.oauth.agents;

import dev.warden.api.oauth.clients.Clients;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.Ids;
import dev.warden.runtime.cache.BoundedCache;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * The clients of service agents bound to OAuth ({@link AgentClientRepository}), remembered per agent version
 * (D190): the secret is the agent's token and the binding is a row, and every change to either (a rotation, a
 * suspension or revocation, the client bound or unbound) moves the agent's {@code updatedAt}. So a client read at
 * version V stays right while {@link AgentDirectory} (the cache {@code POST /authorize} uses, dropped on every
 * instance by PostgreSQL {@code NOTIFY} at each agent change) still says the agent is active at V: a rotated token
 * stops authenticating on every instance as soon as a decision would see the rotation. Only a read whose version
 * matches the directory's is remembered.
 */
public final class BoundAgentClients implements Clients.Source {
    /** Past this many bound agents the memory starts again. */
    static final int MAX_REMEMBERED = 10_000;
    /**
     * How long a read is trusted even at the same version: binding and moving the version are two transactions, so a
     * process that stopped between them leaves the binding changed at the old version; a minute later every
     * instance reads the row again.
     */
    static final Duration KEEP = Duration.ofSeconds(60);

    private record Remembered(Instant version, Optional<OAuthClient> client, Instant until) {}

    private final AgentClientRepository repository;
    private final AgentDirectory directory;
    private final InstantSource clock;
    private final BoundedCache<String, Remembered> remembered = new BoundedCache<>(MAX_REMEMBERED);

    public BoundAgentClients(AgentClientRepository repository, AgentDirectory directory, InstantSource clock) {
        this.repository = repository;
        this.directory = directory;
        this.clock = clock;
    }

    @Override
    public Optional<OAuthClient> find(String clientId) {
        if (!Ids.isValid(clientId)) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        Optional<Agent> agent = directory.policy(AgentId.of(clientId)).agent().filter(a -> a.isActive(now));
        if (agent.isEmpty()) {
            return Optional.empty();
        }
        Instant version = version(agent.get().updatedAt());
        Remembered known = remembered.get(clientId);
        if (known != null && known.version().equals(version) && now.isBefore(known.until())) {
            return known.client();
        }
        Optional<AgentClientRepository.Bound> read = repository.bound(clientId, now);
        Optional<OAuthClient> client = read.map(AgentClientRepository.Bound::client);
        // An unbound agent has no row to read a version from: its read is as good as the directory's agent.
        Instant readVersion = read.map(b -> version(b.agentUpdatedAt())).orElse(version);
        if (readVersion.equals(version)) {
            remembered.put(clientId, new Remembered(version, client, now.plus(KEEP)));
        }
        return client;
    }

    private static Instant version(Instant updatedAt) {
        return updatedAt.truncatedTo(ChronoUnit.MICROS);
    }
}
