package dev.warden.api.users;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.config.WardenConfig;
import dev.warden.api.ratelimit.AuthEndpoint;
import dev.warden.api.ratelimit.RateLimitConfig;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import java.util.UUID;

/** Fixtures for the username plugin: request bodies, sign-up through HTTP, fast test configuration. */
final class TestUsers {
    private TestUsers() {}

    /** A fresh, valid, unique username such as {@code user_3f9a1c2b}. */
    static String aUsername() {
        return "user_" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** {@code {"username", "password"}}. */
    static String credentials(String username, String password) {
        ObjectNode body =
                Json.mapper().createObjectNode().put("username", username).put("password", password);
        return body.toString();
    }

    /** Signs up {@code username} with {@code password}; returns the 201 body {@code {user, token}}. */
    static JsonNode signUp(Http http, String username, String password) {
        Http.Response res = http.post("/auth/sign-up", null, credentials(username, password));
        assertThat(res.status()).as(res.body()).isEqualTo(201);
        return res.json();
    }

    /** Cheap Argon2id and generous IP limits, so a test class can sign in many times quickly. */
    static WardenConfig.Builder fast(WardenConfig.Builder b) {
        return b.users(UsersConfig.builder().argon2(1024, 1, 1).build())
                .rateLimit(RateLimitConfig.builder()
                        .endpoint(AuthEndpoint.SIGN_IN, 10_000, 60)
                        .endpoint(AuthEndpoint.SIGN_UP, 10_000, 60)
                        .build());
    }
}
