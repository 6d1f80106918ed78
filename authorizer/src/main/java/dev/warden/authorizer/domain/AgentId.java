package dev.warden.authorizer.domain;

/** The id of an agent; validated on construction (see {@link Ids}). */
public record AgentId(String value) implements Comparable<AgentId> {
    public AgentId {
        Ids.require("agentId", value);
    }

    /** Parses and validates an id supplied by a caller. */
    public static AgentId of(String value) {
        return new AgentId(value);
    }

    /** A new random id ({@code agt_...}). */
    public static AgentId random() {
        return new AgentId(Ids.mint("agt"));
    }

    @Override
    public int compareTo(AgentId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
