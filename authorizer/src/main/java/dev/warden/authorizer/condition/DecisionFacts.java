package dev.warden.authorizer.condition;

import dev.cel.common.values.NullValue;
import dev.warden.authorizer.domain.Agent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a condition may read about one decision: the variables {@code action}, {@code arguments}, {@code context},
 * {@code resource}, {@code agent} and {@code user} (docs/conditions.md lists each field with examples).
 *
 * @param agent        the agent the decision is about
 * @param action       the action asked for
 * @param resource     the resource asked about
 * @param arguments    the call's arguments as the caller sent them (JSON values as JDK values)
 * @param callerIp     the network address of the caller, as Warden saw it (after trusted proxies)
 * @param time         the decision's time
 * @param declaredIp   the address the caller declared in its request's {@code context.ip}, if any
 * @param userAgent    the user agent the caller declared, if any
 * @param extraContext further context the caller sent (AuthZEN's {@code context}); never replaces the fields above
 * @param properties   properties of the resource the caller sent (AuthZEN's {@code resource.properties})
 */
public record DecisionFacts(
        Agent agent,
        String action,
        String resource,
        Map<String, Object> arguments,
        String callerIp,
        Instant time,
        Optional<String> declaredIp,
        Optional<String> userAgent,
        Map<String, Object> extraContext,
        Map<String, Object> properties) {

    /** The facts of a {@code POST /authorize} call. */
    public static DecisionFacts of(
            Agent agent,
            String action,
            String resource,
            Map<String, Object> arguments,
            String callerIp,
            Instant time,
            Optional<String> declaredIp,
            Optional<String> userAgent) {
        return new DecisionFacts(
                agent, action, resource, arguments, callerIp, time, declaredIp, userAgent, Map.of(), Map.of());
    }

    /**
     * The variable {@code name} as CEL reads it (numbers as {@code int} or {@code double}, JSON null as CEL
     * {@code null}), built when an expression first reads it; empty for a name that is not a variable.
     */
    Optional<Object> variable(String name) {
        return Optional.ofNullable(
                switch (name) {
                    case "action" -> action;
                    case "arguments" -> celMap(arguments);
                    case "context" -> context();
                    case "resource" -> resourceVariable();
                    case "agent" -> agentVariable();
                    case "user" -> Map.of("id", agent.ownerId().value());
                    default -> null;
                });
    }

    private Map<String, Object> context() {
        Map<String, Object> context = new HashMap<>(celMap(extraContext));
        context.put("ip", callerIp);
        context.put("time", time);
        declaredIp.ifPresent(ip -> context.put("declaredIp", ip));
        userAgent.ifPresent(ua -> context.put("userAgent", ua));
        return context;
    }

    private Map<String, Object> resourceVariable() {
        Map<String, Object> resourceVar = new HashMap<>();
        resourceVar.put("name", resource);
        resourceVar.put("parts", List.of(resource.split(":", -1)));
        resourceVar.put("properties", celMap(properties));
        return resourceVar;
    }

    private Map<String, Object> agentVariable() {
        Map<String, Object> agentVar = new HashMap<>();
        agentVar.put("id", agent.id().value());
        agentVar.put("type", agent.type().wireName());
        agentVar.put("name", agent.name());
        agentVar.put("tenant", agent.tenantId().map(t -> (Object) t.value()).orElse(NullValue.NULL_VALUE));
        agentVar.put("metadata", celMap(agent.metadata()));
        return agentVar;
    }

    private static Map<String, Object> celMap(Map<String, Object> json) {
        Map<String, Object> out = new LinkedHashMap<>(json.size() * 2);
        json.forEach((k, v) -> out.put(k, celValue(v)));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Object celValue(Object v) {
        return switch (v) {
            case null -> NullValue.NULL_VALUE;
            case Integer i -> i.longValue();
            case Short s -> s.longValue();
            case Byte b -> b.longValue();
            case Float f -> f.doubleValue();
            case BigInteger b -> b.bitLength() < 64 ? (Object) b.longValue() : (Object) b.doubleValue();
            case BigDecimal d -> d.doubleValue();
            case Map<?, ?> m -> celMap((Map<String, Object>) m);
            case Collection<?> c -> {
                List<Object> list = new ArrayList<>(c.size());
                c.forEach(item -> list.add(celValue(item)));
                yield list;
            }
            default -> v;
        };
    }
}
