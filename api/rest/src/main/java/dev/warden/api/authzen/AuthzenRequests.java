package dev.warden.api.authzen;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.authorize.AuthorizationService;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.InvalidInputException;
import dev.warden.authorizer.domain.AgentId;
import dev.warden.pipeline.contract.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
    record Evaluation(Entity subject, Entity action, Entity resource, Map<String, Object> context) {
        /** The resource string: {@code type:id}. */
        String resourceName() {
            return resource.type() + ":" + resource.id();
        }

        /**
         * The decision this evaluation asks of {@code agent}: the request's {@code context}, with the subject's and
         * the action's properties as {@code context.subject} and {@code context.action}, is what conditions read in
         * {@code context}; the resource's properties are {@code resource.properties}; all of it is the audit
         * entry's {@code parameters} (redacted as arguments are).
         */
        AuthorizationService.Request toRequest(AgentId agent, String callerIp) {
            Map<String, Object> extra = new LinkedHashMap<>(context);
            Map<String, Object> audited = new LinkedHashMap<>();
            if (!context.isEmpty()) {
                audited.put("context", context);
            }
            if (!subject.properties().isEmpty()) {
                extra.put("subject", subject.properties());
                audited.put("subject", subject.properties());
            }
            if (!action.properties().isEmpty()) {
                extra.put("action", action.properties());
                audited.put("action", action.properties());
            }
            if (!resource.properties().isEmpty()) {
                audited.put("resource", resource.properties());
            }
            return new AuthorizationService.Request(
                    agent,
                    action.id(),
                    resourceName(),
                    audited,
                    Optional.empty(),
                    Optional.empty(),
                    callerIp,
                    extra,
                    resource.properties());
        }
    }

    /**
     * One item of a batch: its evaluation, or why it has none (a missing or mistyped field, which fails that item
     * alone, as the specification's {@code execute_all} allows and the certification scenario expects).
     */
    record Item(Optional<Evaluation> evaluation, Optional<String> problem) {}

    /**
     * A batch: its items and the semantic; {@code single} when the body had no {@code evaluations} (it is then
     * answered as a single evaluation, as the specification says).
     */
    record Batch(List<Item> items, String semantic, boolean single, boolean fullContext) {}

    /** Which entity a search looks for: its {@code id} (or, for actions, the whole entity) is not given. */
    enum Target {
        SUBJECT,
        RESOURCE,
        ACTION
    }

    /**
     * A search: the entities given (the searched one with its type only, an action search with no action) and the
     * page asked for.
     */
    record Search(
            Target target,
            Entity subject,
            Optional<Entity> action,
            Entity resource,
            Map<String, Object> context,
            Optional<String> pageToken,
            int pageLimit) {}

    /** The most results one page of a search carries. */
    static final int MAX_PAGE = 1000;

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
        JsonNode given = body.get("evaluations");
        List<Item> items = new ArrayList<>();
        if (given != null && !given.isNull()) {
            if (!given.isArray()) {
                errors.add(new FieldError("evaluations", "must be an array"));
            } else if (given.size() > MAX_EVALUATIONS) {
                errors.add(new FieldError("evaluations", "must have at most " + MAX_EVALUATIONS + " items"));
            } else {
                for (int i = 0; i < given.size(); i++) {
                    items.add(item(given.get(i), body, "evaluations[" + i + "]"));
                }
            }
        }
        boolean single = items.isEmpty() && errors.isEmpty();
        Evaluation only = single ? evaluation(body, body, "", errors) : null;
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        if (single) {
            items.add(new Item(Optional.of(only), Optional.empty()));
        }
        return new Batch(List.copyOf(items), semantic, single, fullContext);
    }

    /** A batch item over the top-level defaults, or the problem that fails it alone. */
    private static Item item(JsonNode given, ObjectNode defaults, String field) {
        if (!(given instanceof ObjectNode object)) {
            return new Item(Optional.empty(), Optional.of(field + " must be an object"));
        }
        List<FieldError> errors = new ArrayList<>();
        Evaluation e = evaluation(object, defaults, field + ".", errors);
        if (!errors.isEmpty()) {
            return new Item(
                    Optional.empty(),
                    Optional.of(String.join(
                            "; ",
                            errors.stream()
                                    .map(x -> x.field() + " " + x.message())
                                    .toList())));
        }
        return new Item(Optional.of(e), Optional.empty());
    }

    /**
     * The search of {@code body} for {@code target}: the searched entity needs its {@code type} only (a given
     * {@code id} is ignored, as the specification says), an action search has no {@code action}, every other entity
     * is complete; a missing or mistyped field is a 400 naming it.
     */
    static Search search(ObjectNode body, Target target) {
        List<FieldError> errors = new ArrayList<>();
        Entity subject = target == Target.SUBJECT
                ? searched(body.get("subject"), "subject", errors)
                : entity(body.get("subject"), "subject", "id", errors);
        Optional<Entity> action = target == Target.ACTION
                ? Optional.empty()
                : Optional.ofNullable(entity(body.get("action"), "action", "name", errors));
        Entity resource = target == Target.RESOURCE
                ? searched(body.get("resource"), "resource", errors)
                : entity(body.get("resource"), "resource", "id", errors);
        Map<String, Object> ctx = Map.of();
        JsonNode context = body.get("context");
        if (context != null && !context.isNull()) {
            if (context.isObject()) {
                ctx = Json.mapper().convertValue(context, MAP);
            } else {
                errors.add(new FieldError("context", "must be an object"));
            }
        }
        Optional<String> token = Optional.empty();
        int limit = MAX_PAGE;
        JsonNode page = body.get("page");
        if (page != null && !page.isNull()) {
            if (!page.isObject()) {
                errors.add(new FieldError("page", "must be an object"));
            } else {
                JsonNode t = page.get("token");
                if (t != null && !t.isNull()) {
                    if (!t.isTextual() || t.textValue().length() > MAX_NAME) {
                        errors.add(new FieldError(
                                "page.token", "must be a string of at most " + MAX_NAME + " characters"));
                    } else if (!t.textValue().isEmpty()) {
                        token = Optional.of(t.textValue());
                    }
                }
                JsonNode l = page.get("limit");
                if (l != null && !l.isNull()) {
                    if (!l.isIntegralNumber() || l.asLong() < 1 || l.asLong() > MAX_PAGE) {
                        errors.add(new FieldError("page.limit", "must be an integer from 1 to " + MAX_PAGE));
                    } else {
                        limit = l.asInt();
                    }
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        return new Search(target, subject, action, resource, ctx, token, limit);
    }

    /** The searched-for entity: an object with a {@code type}; its {@code id}, if given, is ignored. */
    private static Entity searched(JsonNode node, String field, List<FieldError> errors) {
        if (node == null || node.isNull()) {
            errors.add(new FieldError(field, "is required"));
            return null;
        }
        if (!node.isObject()) {
            errors.add(new FieldError(field, "must be an object"));
            return null;
        }
        Optional<String> type = text(node, "type", field, errors);
        Map<String, Object> properties = properties(node, field, errors);
        return type.map(t -> new Entity(t, "", properties)).orElse(null);
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
        Map<String, Object> properties = properties(node, field, errors);
        if (type.isEmpty() || id.isEmpty()) {
            return null;
        }
        return new Entity(type.get(), id.get(), properties);
    }

    private static Map<String, Object> properties(JsonNode node, String field, List<FieldError> errors) {
        JsonNode props = node.get("properties");
        if (props == null || props.isNull()) {
            return Map.of();
        }
        if (!props.isObject()) {
            errors.add(new FieldError(field + ".properties", "must be an object"));
            return Map.of();
        }
        return Json.mapper().convertValue(props, MAP);
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
