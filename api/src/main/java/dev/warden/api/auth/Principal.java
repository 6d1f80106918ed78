package dev.warden.api.auth;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.UserId;

/** Who is calling, as established by the bearer token. */
public sealed interface Principal {
    /** The id events and audit entries name this caller by. */
    String subjectId();

    /** The deployment's bootstrap administrator: may do everything. */
    record Admin() implements Principal {
        @Override
        public String subjectId() {
            return "admin";
        }
    }

    /** A user, authenticated by one of their API tokens ({@code tokenId}). */
    record User(UserId id, String tokenId) implements Principal {
        @Override
        public String subjectId() {
            return id.value();
        }
    }

    /** An agent, authenticated by its own token. */
    record AgentCaller(AgentId id, UserId ownerId) implements Principal {
        @Override
        public String subjectId() {
            return id.value();
        }
    }
}
