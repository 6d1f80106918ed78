package dev.warden.api.auth;

import java.util.Optional;

/**
 * What a protected route says when it refuses a bearer token (RFC 6750 section 3, RFC 9728 section 5.1): which
 * resource the path belongs to (an OAuth access token must have been issued for it) and the
 * {@code WWW-Authenticate} value pointing clients at that resource's metadata. The OAuth package provides the
 * real one; without it the challenge is a bare {@code Bearer} and every credential is valid everywhere.
 */
public interface BearerChallenges {
    /** The canonical URI of the resource {@code path} belongs to, empty when no audience is checked. */
    Optional<String> resourceFor(String path);

    /**
     * The {@code WWW-Authenticate} value for a request to {@code path}.
     *
     * @param scope the scope the route needs, if any
     * @param error {@code invalid_token} or {@code insufficient_scope}, or empty when no token was sent
     */
    String challenge(String path, Optional<String> scope, Optional<String> error);

    /** Bare challenges, no audiences. */
    BearerChallenges NONE = new BearerChallenges() {
        @Override
        public Optional<String> resourceFor(String path) {
            return Optional.empty();
        }

        @Override
        public String challenge(String path, Optional<String> scope, Optional<String> error) {
            StringBuilder value = new StringBuilder("Bearer");
            error.ifPresent(e -> value.append(" error=\"").append(e).append('"'));
            scope.ifPresent(s -> value.append(error.isPresent() ? ", " : " ")
                    .append("scope=\"")
                    .append(s)
                    .append('"'));
            return value.toString();
        }
    };
}
