package dev.warden.api.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.http.JsonInput;
import dev.warden.authorizer.domain.ApprovalRule;
import dev.warden.authorizer.domain.Constraints;
import dev.warden.authorizer.domain.Permission;
import dev.warden.authorizer.domain.ResourcePattern;
import dev.warden.pipeline.contract.Json;
import dev.warden.pipeline.contract.WireEnum;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * JSON form of permissions: {@code {"resource","actions":[...],"constraints":{"maxCallsPerHour":n, "when":"...",
 * "allowedIps":[...], "timeWindows":[...], "validFrom":"...", "validUntil":"..."}?}} (the condition fields are
 * {@link ConditionJson}'s).
 */
public final class PermissionJson {
    /** Most permissions one agent or delegation may carry. */
    public static final int MAX_PERMISSIONS = 1000;
    /** Most actions in one permission. */
    public static final int MAX_ACTIONS = 100;
    /** Longest action name. */
    public static final int MAX_ACTION_LENGTH = 128;

    private static final Set<String> FIELDS = Set.of("resource", "actions", "constraints");
    private static final Set<String> CONSTRAINT_FIELDS =
            union(Set.of("maxCallsPerHour", "requireApproval"), ConditionJson.FIELDS);
    private static final Set<String> APPROVAL_FIELDS = Set.of("approvers", "validFor");

    private PermissionJson() {}

    /** Parses the permissions in {@code items} (the elements of field {@code field}), reporting to {@code in}. */
    public static List<Permission> parse(JsonInput in, String field, List<ObjectNode> items) {
        List<Permission> permissions = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            JsonInput p = in.nested(items.get(i), field + "[" + i + "]", FIELDS);
            parseOne(p).ifPresent(permissions::add);
        }
        return permissions;
    }

    private static Optional<Permission> parseOne(JsonInput p) {
        Optional<String> resource = p.requiredString("resource", ResourcePattern.MAX_LENGTH);
        resource.flatMap(ResourcePattern::problem).ifPresent(problem -> p.error("resource", problem));
        List<String> actions = actions(p);
        Constraints constraints = constraints(p);
        if (resource.isEmpty()
                || actions.isEmpty()
                || ResourcePattern.problem(resource.get()).isPresent()) {
            return Optional.empty();
        }
        return Optional.of(new Permission(resource.get(), actions, constraints));
    }

    private static List<String> actions(JsonInput p) {
        Optional<JsonNode> raw = p.raw("actions");
        if (raw.isEmpty()) {
            p.error("actions", "is required");
            return List.of();
        }
        if (!raw.get().isArray() || raw.get().isEmpty()) {
            p.error("actions", "must be a non-empty array of action names");
            return List.of();
        }
        if (raw.get().size() > MAX_ACTIONS) {
            p.error("actions", "must have at most " + MAX_ACTIONS + " items");
            return List.of();
        }
        Set<String> actions = new LinkedHashSet<>();
        for (int i = 0; i < raw.get().size(); i++) {
            JsonNode a = raw.get().get(i);
            if (!a.isTextual()
                    || a.textValue().isBlank()
                    || a.textValue().length() > MAX_ACTION_LENGTH
                    || !a.textValue().strip().equals(a.textValue())) {
                p.error(
                        "actions[" + i + "]",
                        "must be a non-blank name of at most " + MAX_ACTION_LENGTH
                                + " characters without surrounding blanks");
                return List.of();
            }
            actions.add(a.textValue());
        }
        return List.copyOf(actions);
    }

    private static Constraints constraints(JsonInput p) {
        Optional<JsonNode> raw = p.raw("constraints");
        if (raw.isEmpty()) {
            return Constraints.NONE;
        }
        if (!(raw.get() instanceof ObjectNode object)) {
            p.error("constraints", "must be a JSON object");
            return Constraints.NONE;
        }
        JsonInput c = p.nested(object, "constraints", CONSTRAINT_FIELDS);
        OptionalLong max = c.optionalLong("maxCallsPerHour", 1, 1_000_000_000L);
        return new Constraints(max, ConditionJson.parse(c), approval(c));
    }

    /** {@code requireApproval: {approvers?: owner|organization_admins, validFor?: once|ISO-8601 duration}}. */
    private static Optional<ApprovalRule> approval(JsonInput c) {
        Optional<JsonNode> raw = c.raw("requireApproval");
        if (raw.isEmpty()) {
            return Optional.empty();
        }
        if (!(raw.get() instanceof ObjectNode object)) {
            c.error("requireApproval", "must be a JSON object such as {\"approvers\":\"owner\",\"validFor\":\"once\"}");
            return Optional.empty();
        }
        JsonInput a = c.nested(object, "requireApproval", APPROVAL_FIELDS);
        ApprovalRule.Approvers approvers = a.optionalValue(
                        "approvers",
                        32,
                        text -> WireEnum.parse(ApprovalRule.Approvers.class, text)
                                .orElseThrow(() -> new IllegalArgumentException(
                                        "must be one of: " + WireEnum.choices(ApprovalRule.Approvers.class))))
                .orElse(ApprovalRule.Approvers.OWNER);
        Optional<Duration> validFor =
                a.optionalValue("validFor", 32, PermissionJson::validFor).flatMap(d -> d);
        if (!a.isValid()) {
            return Optional.empty();
        }
        return Optional.of(new ApprovalRule(approvers, validFor));
    }

    /** {@code once} (empty), or an ISO-8601 duration from 1 second to 30 days. */
    private static Optional<Duration> validFor(String text) {
        if (text.equals("once")) {
            return Optional.empty();
        }
        try {
            Duration d = Duration.parse(text);
            if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(ApprovalRule.MAX_VALID_FOR) > 0) {
                throw new IllegalArgumentException("must be from PT1S to P30D");
            }
            return Optional.of(d);
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("must be once or an ISO-8601 duration such as PT1H");
        }
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }

    /** The JSON array of {@code permissions}. */
    public static ArrayNode render(List<Permission> permissions) {
        ArrayNode array = Json.mapper().createArrayNode();
        for (Permission permission : permissions) {
            ObjectNode node = array.addObject().put("resource", permission.resource());
            ArrayNode actions = node.putArray("actions");
            permission.actions().forEach(actions::add);
            Constraints constraints = permission.constraints();
            if (!constraints.isEmpty()) {
                ObjectNode c = node.putObject("constraints");
                constraints.maxCallsPerHour().ifPresent(max -> c.put("maxCallsPerHour", max));
                constraints.condition().ifPresent(condition -> ConditionJson.render(condition, c));
                constraints
                        .approval()
                        .ifPresent(rule -> c.putObject("requireApproval")
                                .put("approvers", rule.approvers().wireName())
                                .put(
                                        "validFor",
                                        rule.validFor().map(Duration::toString).orElse("once")));
            }
        }
        return array;
    }

    /** Reads permissions stored by {@link #render} (trusted input: the database). */
    public static List<Permission> fromStored(JsonNode array) {
        List<Permission> permissions = new ArrayList<>(array.size());
        for (JsonNode node : array) {
            List<String> actions = new ArrayList<>();
            node.get("actions").forEach(a -> actions.add(a.textValue()));
            JsonNode stored = node.path("constraints");
            JsonNode max = stored.path("maxCallsPerHour");
            JsonNode approval = stored.path("requireApproval");
            Optional<ApprovalRule> rule = approval.isObject()
                    ? Optional.of(new ApprovalRule(
                            WireEnum.parse(
                                            ApprovalRule.Approvers.class,
                                            approval.path("approvers").textValue())
                                    .orElseThrow(),
                            validFor(approval.path("validFor").textValue())))
                    : Optional.empty();
            Constraints constraints = new Constraints(
                    max.isMissingNode() ? OptionalLong.empty() : OptionalLong.of(max.asLong()),
                    ConditionJson.fromStored(stored),
                    rule);
            permissions.add(new Permission(node.get("resource").textValue(), actions, constraints));
        }
        return permissions;
    }
}
