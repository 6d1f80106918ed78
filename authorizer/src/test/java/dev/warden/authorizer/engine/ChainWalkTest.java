package dev.warden.authorizer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.AgentStatus;
import dev.warden.authorizer.domain.AgentType;
import dev.warden.authorizer.domain.Constraints;
import dev.warden.authorizer.domain.Delegation;
import dev.warden.authorizer.domain.DelegationId;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.domain.UserId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The delegation-chain walk and the hour window, without storage. */
class ChainWalkTest {
    static final Instant NOW = Instant.parse("2026-11-24T10:15:30Z");

    /** Agents and delegations in memory. */
    static final class Graph implements ChainWalk.Graph {
        final Map<AgentId, Agent> agents = new HashMap<>();
        final List<Delegation> delegations = new ArrayList<>();

        Agent agent(String id, AgentStatus status, Permission... permissions) {
            Agent agent = new Agent(
                    AgentId.of(id),
                    UserId.of("olga"),
                    Optional.empty(),
                    id,
                    AgentType.AUTONOMOUS,
                    status,
                    List.of(permissions),
                    Optional.empty(),
                    Map.of(),
                    NOW,
                    NOW,
                    Optional.empty());
            agents.put(agent.id(), agent);
            return agent;
        }

        void delegate(String from, String to, Permission permission) {
            delegations.add(new Delegation(
                    DelegationId.random(),
                    AgentId.of(from),
                    AgentId.of(to),
                    List.of(permission),
                    1,
                    3,
                    List.of(),
                    Optional.of(NOW.plusSeconds(600)),
                    NOW,
                    Optional.empty()));
        }

        @Override
        public Optional<Agent> agent(AgentId id) {
            return Optional.ofNullable(agents.get(id));
        }

        @Override
        public List<Delegation> unrevokedTo(AgentId id) {
            return delegations.stream().filter(d -> d.toAgent().equals(id)).toList();
        }
    }

    static Permission read(String resource, Constraints constraints) {
        return new Permission(resource, List.of("read"), constraints);
    }

    @Test
    void aDelegatedPermissionHangsUnderTheSourcesGrantAndCarriesItsConstraint() {
        Graph graph = new Graph();
        graph.agent(
                "agt_source000000000000000000",
                AgentStatus.ACTIVE,
                read("mcp:github:*", Constraints.maxCallsPerHour(10)));
        graph.agent("agt_target000000000000000000", AgentStatus.ACTIVE);
        graph.delegate(
                "agt_source000000000000000000",
                "agt_target000000000000000000",
                read("mcp:github:issues:*", Constraints.NONE));

        ChainWalk.Result target = ChainWalk.resolve(AgentId.of("agt_target000000000000000000"), NOW, graph);

        assertThat(target.policy().firstMatch("read", "mcp:github:issues:1"))
                .hasValueSatisfying(grant -> assertThat(grant.isConstrained())
                        .as("the source's hourly limit applies")
                        .isTrue());
        assertThat(target.policy().firstMatch("read", "mcp:github:pulls:1")).isEmpty();
        assertThat(target.validUntil()).isEqualTo(NOW.plusSeconds(600));
    }

    @Test
    void anInactiveSourceCutsTheChainAndACycleIsWalkedOnce() {
        Graph graph = new Graph();
        graph.agent("agt_source000000000000000000", AgentStatus.SUSPENDED, read("mcp:*", Constraints.NONE));
        graph.agent("agt_target000000000000000000", AgentStatus.ACTIVE, read("x:*", Constraints.NONE));
        graph.delegate(
                "agt_source000000000000000000", "agt_target000000000000000000", read("mcp:a:*", Constraints.NONE));
        graph.delegate("agt_target000000000000000000", "agt_source000000000000000000", read("x:y:*", Constraints.NONE));

        ChainWalk.Result target = ChainWalk.resolve(AgentId.of("agt_target000000000000000000"), NOW, graph);

        assertThat(target.policy().firstMatch("read", "mcp:a:1")).isEmpty();
        assertThat(target.policy().firstMatch("read", "x:y:1")).isPresent();
        assertThat(ChainWalk.resolve(AgentId.of("agt_nobody000000000000000000"), NOW, graph)
                        .agent())
                .isEmpty();
    }

    @Test
    void theHourWindowIsTheClockHourInUtc() {
        assertThat(HourWindow.hourOf(NOW)).isEqualTo(NOW.getEpochSecond() / 3600);
        assertThat(HourWindow.secondsUntilNextHour(NOW)).isEqualTo(44 * 60 + 30);
        assertThat(HourWindow.secondsUntilNextHour(Instant.parse("2026-11-24T11:00:00Z")))
                .isEqualTo(3600);
        assertThat(DecisionRules.statusReason(AgentStatus.REVOKED)).hasValue(DecisionReason.AGENT_REVOKED);
        assertThat(DecisionRules.statusReason(AgentStatus.ACTIVE)).isEmpty();
    }
}
