package dev.warden.api.authzen;

import dev.warden.api.access.Principal;
import dev.warden.api.agents.AgentService;
import dev.warden.api.errors.ConflictException;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.WardenException;
import dev.warden.authorizer.domain.Agent;
import dev.warden.authorizer.domain.AgentId;
import java.util.List;
import java.util.Optional;

/**
 * Which Warden agent an AuthZEN subject is (docs/authzen.md). A subject of type {@code agent} is the agent with that
 * id. A subject of another type (a gateway's {@code user}, say) is the one agent the caller may see whose metadata
 * {@code authzen.subject} is {@code type:id} (D174): an enforcement point keeps its own names and Warden its agents.
 * The caller learns nothing about agents it may not see: an unknown name and another owner's are the same 404.
 */
final class AuthzenSubjects {
    /** The metadata key that names the AuthZEN subject an agent stands for. */
    static final String METADATA_KEY = "authzen.subject";
    /** The subject type that names an agent by its id. */
    static final String AGENT = "agent";

    private final AgentService agents;

    AuthzenSubjects(AgentService agents) {
        this.agents = agents;
    }

    /** The subject's agent, or why there is none. */
    sealed interface Resolved {
        /** The agent (whether the caller may ask about it is the decision's own check). */
        record Found(AgentId id) implements Resolved {}

        /** No single agent: {@code why} is the evaluation's error. */
        record Missing(WardenException why) implements Resolved {}
    }

    Resolved resolve(Principal caller, String type, String id) {
        if (type.equals(AGENT)) {
            try {
                return new Resolved.Found(AgentId.of(id));
            } catch (IllegalArgumentException e) {
                return new Resolved.Missing(InvalidInputException.field("subject.id", "is not an agent id"));
            }
        }
        String name = type + ":" + id;
        List<Agent> found = agents.findBySubject(caller, name);
        return switch (found.size()) {
            case 0 ->
                new Resolved.Missing(new NotFoundException(
                        ErrorCode.AGENT_NOT_FOUND, "no agent you may ask about is known as subject " + name));
            case 1 -> new Resolved.Found(found.getFirst().id());
            default ->
                new Resolved.Missing(new ConflictException(
                        ErrorCode.CONFLICT,
                        "more than one agent is known as subject " + name + "; give " + METADATA_KEY + " to one"));
        };
    }

    /** The subject an agent stands for as {@code type}, if any: its id for {@code agent}, else its metadata name. */
    static Optional<String> idAs(Agent agent, String type) {
        if (type.equals(AGENT)) {
            return Optional.of(agent.id().value());
        }
        Object name = agent.metadata().get(METADATA_KEY);
        String prefix = type + ":";
        return name instanceof String s && s.startsWith(prefix) && s.length() > prefix.length()
                ? Optional.of(s.substring(prefix.length()))
                : Optional.empty();
    }
}
