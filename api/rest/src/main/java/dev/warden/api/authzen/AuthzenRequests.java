package dev.warden.api.authzen;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.pipeline.contract.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The AuthZEN Authorization API 1.0 request bodies (the {@code openid/authzen} repository,
 * {@code api/authorization-api-1_0.md}): an evaluation is {@code {subject: {type, id, properties?}, action: {name,
 * properties?}, resource: {type, id, properties?}, context?}}; a batch adds {@code evaluations} and
 * {@code options.evaluations_semantic}, the top-level keys being defaults for each item. Unknown fields are ignored,
 * as the specification requires of receivers; a missing or mistyped required field is a 400 naming it.
 */
final class AuthzenRequests {
    /** The most evaluations one batch may carry. */
    static final int MAX_EVALUATIONS = 1000;
    /** The longest identifier, type or action name. */
    static final int MAX_NAME = 512;

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private AuthzenRequests() {}

    /** An entity as given: a subject or resource ({@code type}, {@code id}) or an action ({@code name}). */
    record Entity(String type, String id, Map<String, Object> properties) {}

    /** One evaluation, defaults applied. */
    record Evaluation(Entity subject, Entity action, Entity resource, Map<String, Object> context) {}

    /**
     * A batch: its evaluations and the semantic; {@code single} when the body had no {@code evaluations} (it is then
     * answered as a single evaluation, as the specification says).
     */
    record Batch(List<Evaluation> evaluations, String semantic, boolean single, boolean fullContext) {}

    /** The single evaluation of {@code body}. */
    static Evaluation evaluation(ObjectNode body) {
        List<FieldError> errors = new ArrayList<>();
        Evaluation e = evaluation(body, body, "", errors);
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        return e;
    }

    /** The batch of {@code body}: every item of {@code evaluations} over the top-level defaults. */
    static Batch batch(ObjectNode body) {
        List<FieldError> errors = new ArrayList<>();
        String semantic = "execute_all";
        boolean fullContext = false;
        JsonNode options = body.get("options");
        if (options != null && !options.isNull()) {
            if (!options.isObject()) {
                errors.add(new FieldError("options", "must be an object"));
            } else if (options.has("evaluations_semantic")) {
                JsonNode s = options.get("evaluations_semantic");
                if (!s.isTextual()
                        || !List.of("execute_all", "deny_on_first_deny", "permit_on_first_permit")
                                .contains(s.textValue())) {
                    errors.add(new FieldError(
                            "options.evaluations_semantic",
                            "must be execute_all, deny_on_first_deny or permit_on_first_permit"));
                } else {
                    semantic = s.textValue();
                }
            }
            if (options.isObject() && options.has("warden_decision_context")) {
                JsonNode c = options.get("warden_decision_context");
                if (!c.isTextual() || !List.of("full", "minimal").contains(c.textValue())) {
                    errors.add(new FieldError("options.warden_decision_context", "must be full or minimal"));
                } else {
                    fullContext = c.textValue().equals("full");
                }
            }
        }
        JsonNode items = body.get("evaluations");
        List<Evaluation> evaluations = new ArrayList<>();
        if (items != null && !items.isNull()) {
            if (!items.isArray()) {
                errors.add(new FieldError("evaluations", "must be an array"));
            } else if (items.size() > MAX_EVALUATIONS) {
                errors.add(new FieldError("evaluations", "must have at most " + MAX_EVALUATIONS + " items"));
            } else {
                for (int i = 0; i < items.size(); i++) {
                    if (items.get(i) instanceof ObjectNode item) {
                        evaluations.add(evaluation(item, body, "evaluations[" + i + "].", errors));
                    } else {
                        errors.add(new FieldError("evaluations[" + i + "]", "must be an object"));
                    }
                }
            }
        }
        boolean single = evaluations.isEmpty() && errors.isEmpty();
        if (single) {
            evaluations.add(evaluation(body, body, "", errors));
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        return new Batch(List.copyOf(evaluations), semantic, single, fullContext);
    }

    private static Evaluation evaluation(ObjectNode item, ObjectNode defaults, String prefix, List<FieldError> errors) {
        Entity subject = entity(pick(item, defaults, "subject"), prefix + "subject", "id", errors);
        Entity action = entity(pick(item, defaults, "action"), prefix + "action", "name", errors);
        Entity resource = entity(pick(item, defaults, "resource"), prefix + "resource", "id", errors);
        JsonNode context = pick(item, defaults, "context");
        Map<String, Object> ctx = Map.of();
        if (context != null && !context.isNull()) {
            if (context.isObject()) {
                ctx = Json.mapper().convertValue(context, MAP);
            } else {
                errors.add(new FieldError(prefix + "context", "must be an object"));
            }
        }
        return new Evaluation(subject, action, resource, ctx);
    }

    /** The item's own key, else the top-level default. */
    private static JsonNode pick(ObjectNode item, ObjectNode defaults, String key) {
        JsonNode own = item.get(key);
        return own != null && !own.isNull() ? own : defaults.get(key);
    }

    private static Entity entity(JsonNode node, String field, String idKey, List<FieldError> errors) {
        if (node == null || node.isNull()) {
            errors.add(new FieldError(field, "is required"));
            return null;
        }
        if (!node.isObject()) {
            errors.add(new FieldError(field, "must be an object"));
            return null;
        }
        boolean isAction = idKey.equals("name");
        Optional<String> type = isAction ? Optional.of("") : text(node, "type", field, errors);
        Optional<String> id = text(node, idKey, field, errors);
        Map<String, Object> properties = Map.of();
        JsonNode props = node.get("properties");
        if (props != null && !props.isNull()) {
            if (props.isObject()) {
                properties = Json.mapper().convertValue(props, MAP);
            } else {
                errors.add(new FieldError(field + ".properties", "must be an object"));
            }
        }
        if (type.isEmpty() || id.isEmpty()) {
            return null;
        }
        return new Entity(type.get(), id.get(), properties);
    }

    private static Optional<String> text(JsonNode node, String key, String field, List<FieldError> errors) {
        JsonNode value = node.get(key);
        if (value == null || value.isNull()) {
            errors.add(new FieldError(field + "." + key, "is required"));
            return Optional.empty();
        }
        if (!value.isTextual()
                || value.textValue().isEmpty()
                || value.textValue().length() > MAX_NAME) {
            errors.add(new FieldError(field + "." + key, "must be a string of 1 to " + MAX_NAME + " characters"));
            return Optional.empty();
        }
        return Optional.of(value.textValue());
    }
}
