package dev.warden.api.oauth.ciba;

import java.time.Instant;
import java.util.Optional;

/**
 * Where a backchannel (CIBA) request asks its person: an approval request (docs/approvals.md), so that it reaches them
 * as every approval does (the stream and webhooks, the console, e-mail) and is decided with
 * {@code POST /approvals/{id}/approve|deny}. Implemented by the approvals of the REST API.
 */
public interface BackchannelApprovals {
    /** What became of a request when its client polls. */
    enum Outcome {
        /** Not decided yet. */
        PENDING,
        /** Approved: taken now, so that it issues tokens once. */
        GRANTED,
        /** Denied by the person. */
        DENIED,
        /** Expired, cancelled (the agent was revoked), or already taken. */
        ENDED
    }

    /**
     * Records a pending request of agent {@code agentId} for its owner to approve: the client wants {@code scope} on
     * {@code resource}, showing {@code bindingMessage}; it ends at {@code expiresAt}. Returns the approval's id.
     */
    String request(
            String agentId,
            String authRequestKey,
            String scope,
            String resource,
            Optional<String> bindingMessage,
            Instant expiresAt,
            Instant now);

    /** What became of approval {@code approvalId} (made for {@code agentId} and {@code authRequestKey}). */
    Outcome take(String approvalId, String agentId, String authRequestKey, Instant now);

    /**
     * A late binding: the authorization server is built before the REST API that holds the approvals, and routes
     * are served only once both exist.
     */
    final class Forward implements BackchannelApprovals {
        private volatile BackchannelApprovals target;

        public void bind(BackchannelApprovals target) {
            this.target = target;
        }

        private BackchannelApprovals target() {
            BackchannelApprovals t = target;
            if (t == null) {
                throw new IllegalStateException("backchannel approvals are not wired (the api role is not running)");
            }
            return t;
        }

        @Override
        public String request(
                String agentId,
                String authRequestKey,
                String scope,
                String resource,
                Optional<String> bindingMessage,
                Instant expiresAt,
                Instant now) {
            return target().request(agentId, authRequestKey, scope, resource, bindingMessage, expiresAt, now);
        }

        @Override
        public Outcome take(String approvalId, String agentId, String authRequestKey, Instant now) {
            return target().take(approvalId, agentId, authRequestKey, now);
        }
    }
}
