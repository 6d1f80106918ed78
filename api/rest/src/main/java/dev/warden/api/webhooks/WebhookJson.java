package dev.warden.api.webhooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.http.JsonInput;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.EventType;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.WireEnum;
import dev.warden.runtime.outbound.TargetGuard;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The JSON forms of a webhook endpoint and of its create request (docs/webhooks.md). */
final class WebhookJson {
    static final int MAX_URL = 2048;
    static final int MAX_DESCRIPTION = 500;
    static final int MAX_TYPES = 64;

    private static final Set<String> CREATE_FIELDS = Set.of("url", "eventTypes", "description");

    private WebhookJson() {}

    /**
     * Parses {@code POST /webhooks}, checking the URL with {@code guard} (which may resolve its host); every
     * field error is reported at once.
     */
    static WebhookService.NewWebhook parseCreate(ObjectNode body, TargetGuard guard) {
        JsonInput in = JsonInput.of(body, CREATE_FIELDS);
        Optional<URI> url = in.requiredValue("url", MAX_URL, TargetGuard::parseUrl);
        List<EventType> types = eventTypes(in);
        Optional<String> description = in.optionalString("description", MAX_DESCRIPTION);
        url.ifPresent(target -> {
            TargetGuard.Verdict verdict = guard.check(target);
            if (!verdict.allowed()) {
                in.error("url", verdict.reason());
            }
        });
        in.validate();
        return new WebhookService.NewWebhook(url.orElseThrow(), types, description);
    }

    /** The listed types without duplicates, in order; empty (absent, null or []) means every type. */
    private static List<EventType> eventTypes(JsonInput in) {
        Optional<JsonNode> raw = in.raw("eventTypes");
        if (raw.isEmpty()) {
            return List.of();
        }
        JsonNode array = raw.get();
        if (!array.isArray()) {
            in.error("eventTypes", "must be an array of event type names");
            return List.of();
        }
        if (array.size() > MAX_TYPES) {
            in.error("eventTypes", "must have at most " + MAX_TYPES + " items");
            return List.of();
        }
        Set<EventType> types = new LinkedHashSet<>();
        for (int i = 0; i < array.size(); i++) {
            JsonNode item = array.get(i);
            Optional<EventType> type =
                    item.isTextual() ? WireEnum.parse(EventType.class, item.textValue()) : Optional.empty();
            if (type.isEmpty()) {
                in.error("eventTypes[" + i + "]", "must be one of: " + WireEnum.choices(EventType.class));
            } else {
                types.add(type.get());
            }
        }
        return new ArrayList<>(types);
    }

    static ObjectNode render(Webhook webhook, Optional<String> secret) {
        ObjectNode node = Json.mapper()
                .createObjectNode()
                .put("id", webhook.id())
                .put("url", webhook.url().toString());
        ArrayNode types = node.putArray("eventTypes");
        webhook.eventTypes().forEach(t -> types.add(t.wireName()));
        node.put("description", webhook.description().orElse(null));
        secret.ifPresent(s -> node.put("secret", s));
        node.put("status", webhook.status().wireName());
        node.put("ownerId", webhook.owner().user().map(UserId::value).orElse(null));
        node.put("createdAt", Json.timestamp(webhook.createdAt()));
        return node;
    }

    static ArrayNode renderAll(List<Webhook> webhooks) {
        ArrayNode array = Json.mapper().createArrayNode();
        webhooks.forEach(w -> array.add(render(w, Optional.empty())));
        return array;
    }
}
