package dev.warden.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * Warden's answer to an {@link AuthorizationRequest}: allowed or not, the reason of a denial
 * ({@code NO_MATCHING_PERMISSION}, {@code CONDITION_NOT_MET}, {@code APPROVAL_REQUIRED}, ...), the id of the audit
 * entry that records it, the approval to wait for when a person must approve first, and the whole answer.
 */
public record Decision(
        boolean allowed, Optional<String> reason, String auditId, Optional<String> approvalId, JsonNode raw) {

    static Decision of(JsonNode answer) {
        return new Decision(
                answer.path("allowed").asBoolean(false),
                text(answer, "reason"),
                answer.path("auditId").asText(""),
                text(answer, "approvalId"),
                answer);
    }

    private static Optional<String> text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isTextual() ? Optional.of(value.asText()) : Optional.empty();
    }
}
