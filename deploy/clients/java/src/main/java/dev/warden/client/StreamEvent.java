package dev.warden.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * One event of the SSE stream (docs/events.md): its id (the resume cursor; empty for a control event such as
 * {@code replay.incomplete}), its type ({@code agent.revoked}, {@code audit}, ...) and its JSON data.
 */
public record StreamEvent(Optional<String> id, String type, JsonNode data) {}
