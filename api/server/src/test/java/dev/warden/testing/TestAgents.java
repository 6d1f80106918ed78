package dev.warden.testing;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.pipeline.contract.Json;

/** Fixture factory for agent request bodies: {@code TestAgents.anAgent("alice").name("x").json()}. */
public final class TestAgents {
    private final ObjectNode body = Json.mapper().createObjectNode();

    private TestAgents(String ownerId) {
        body.put("ownerId", ownerId).put("name", "research-bot").put("type", "autonomous");
        body.putArray("permissions")
                .addObject()
                .put("resource", "mcp:github:*")
                .putArray("actions")
                .add("read");
    }

    /** A valid autonomous agent owned by {@code ownerId} with one permission. */
    public static TestAgents anAgent(String ownerId) {
        return new TestAgents(ownerId);
    }

    public TestAgents name(String name) {
        body.put("name", name);
        return this;
    }

    public TestAgents type(String type) {
        body.put("type", type);
        return this;
    }

    public TestAgents tenant(String tenantId) {
        body.put("tenantId", tenantId);
        return this;
    }

    public TestAgents expiresAt(String timestamp) {
        body.put("expiresAt", timestamp);
        return this;
    }

    public String json() {
        return body.toString();
    }
}
