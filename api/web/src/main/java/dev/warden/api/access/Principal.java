package dev.warden.api.access;

import dev.warden.authorizer.domain.AgentId;
import dev.warden.authorizer.domain.UserId;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Who is calling, as established by the bearer token. */
public sealed interface Principal {
    /** The id events and audit entries name this caller by. */
    String subjectId();

    /** True when this caller's credential covers {@code scope} (only OAuth and API tokens are narrowed). */
    default boolean holds(String scope) {
        return switch (this) {
            case Admin a -> true;
            case User u -> Scopes.grants(u.scopes(), scope);
            case AgentCaller c -> Scopes.grants(c.scopes(), scope);
        };
    }

    /** True unless the credential is an OAuth access token issued for resources other than {@code resource}. */
    default boolean validFor(String resource) {
        return switch (this) {
            case Admin a -> true;
            case User u -> u.credential() != Credential.OAUTH || u.audiences().contains(resource);
            case AgentCaller c -> c.audiences().isEmpty() || c.audiences().contains(resource);
        };
    }

    /** The kind of caller as events name it: {@code admin}, {@code user} or {@code agent}. */
    default String kind() {
        return switch (this) {
            case Admin a -> "admin";
            case User u -> "user";
            case AgentCaller c -> "agent";
        };
    }

    /** The deployment's bootstrap administrator: may do everything. */
    record Admin() implements Principal {
        @Override
        public String subjectId() {
            return "admin";
        }
    }

    /**
     * A user, authenticated by one of their API tokens, a session or an OAuth access token ({@code tokenId} is
     * the token's or the session's id, or the access token's {@code jti}; {@code credential} says which).
     * {@code scopes} are the API token's or the access token's ({@link Scopes}); a session holds every scope.
     * {@code audiences} are the resources an OAuth access token was issued for (empty for every other
     * credential: they are Warden's own and valid on all of it). {@code amr} says how a session signed in (RFC 8176;
     * empty for other credentials) and {@code authTime} when (empty for other credentials).
     */
    record User(
            UserId id,
            String tokenId,
            Credential credential,
            List<String> scopes,
            List<String> audiences,
            List<String> amr,
            Optional<Instant> authTime)
            implements Principal {
        public User {
            scopes = List.copyOf(scopes);
            audiences = List.copyOf(audiences);
            amr = List.copyOf(amr);
        }

        /** A user whose credential says how but not when they signed in. */
        public User(
                UserId id,
                String tokenId,
                Credential credential,
                List<String> scopes,
                List<String> audiences,
                List<String> amr) {
            this(id, tokenId, credential, scopes, audiences, amr, Optional.empty());
        }

        /** A user whose credential says nothing of how they signed in (API tokens, access tokens). */
        public User(UserId id, String tokenId, Credential credential, List<String> scopes, List<String> audiences) {
            this(id, tokenId, credential, scopes, audiences, List.of());
        }

        /** A user authenticated by a Warden credential (no audience restriction). */
        public User(UserId id, String tokenId, Credential credential, List<String> scopes) {
            this(id, tokenId, credential, scopes, List.of());
        }

        /** A user authenticated by the API token {@code tokenId} with every scope. */
        public User(UserId id, String tokenId) {
            this(id, tokenId, Credential.API_TOKEN, List.of(Scopes.ALL));
        }

        /** A user authenticated by {@code credential}, with every scope. */
        public User(UserId id, String tokenId, Credential credential) {
            this(id, tokenId, credential, List.of(Scopes.ALL));
        }

        @Override
        public String subjectId() {
            return id.value();
        }

        /** True when the credential proves a second factor ({@code mfa} in its RFC 8176 {@code amr}). */
        public boolean multiFactor() {
            return amr.contains("mfa");
        }

        /** True when the caller used a session (sign-in), not an API token. */
        public boolean isSession() {
            return credential == Credential.SESSION;
        }
    }

    /** How a user authenticated. */
    enum Credential {
        /** A bearer API token ({@code wdn_api_}). */
        API_TOKEN,
        /** A session token ({@code wdn_ses_}), as bearer token or cookie. */
        SESSION,
        /** An OAuth 2.1 access token (a JWT issued by Warden's authorization server). */
        OAUTH
    }

    /**
     * An agent, authenticated by its own token (every scope, valid everywhere) or by an OAuth access token it
     * obtained with client credentials ({@code scopes} from its permissions, {@code audiences} the token's).
     */
    record AgentCaller(AgentId id, UserId ownerId, List<String> scopes, List<String> audiences) implements Principal {
        public AgentCaller {
            scopes = List.copyOf(scopes);
            audiences = List.copyOf(audiences);
        }

        /** An agent authenticated by its own token. */
        public AgentCaller(AgentId id, UserId ownerId) {
            this(id, ownerId, List.of(Scopes.ALL), List.of());
        }

        @Override
        public String subjectId() {
            return id.value();
        }
    }
}
