package dev.warden.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.warden.cli.ExitCodes;
import dev.warden.cli.Output;
import dev.warden.cli.WardenCli;
import dev.warden.client.AuthorizationRequest;
import dev.warden.client.Decision;
import dev.warden.client.WardenClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code warden authorize}: asks whether an agent may take an action on a resource, and prints the decision and
 * its reason. The exit status is 0 when allowed and 10 when denied, so scripts can branch on it.
 */
@Command(
        name = "authorize",
        description = "Ask for a decision: may AGENT take ACTION on RESOURCE? Exit 0 allowed, 10 denied.")
public final class AuthorizeCommand implements Callable<Integer> {
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @Spec
    CommandSpec spec;

    @Option(names = "--agent", required = true, description = "The agent's id.")
    String agent;

    @Option(names = "--action", required = true, description = "The action, like read.")
    String action;

    @Option(names = "--resource", required = true, description = "The resource, like mcp:github:repo.")
    String resource;

    @Option(
            names = "--arg",
            paramLabel = "NAME=VALUE",
            description = "An argument of the call (repeatable; VALUE is JSON when it parses, else a string).")
    Map<String, String> arguments = new LinkedHashMap<>();

    @Option(names = "--context", paramLabel = "JSON", description = "The call's context, a JSON object.")
    String context;

    @Override
    public Integer call() {
        Map<String, Object> args = new LinkedHashMap<>();
        arguments.forEach((k, v) -> args.put(k, value(v)));
        AuthorizationRequest request = AuthorizationRequest.of(agent, action, resource)
                .withArguments(args)
                .withContext(context());
        WardenCli cli = WardenCli.of(spec);
        Decision decision;
        try (WardenClient client = cli.client()) {
            decision = client.authorize(request);
        }
        Output output = cli.output();
        if (output.format() == Output.Format.json) {
            output.json(decision.raw());
        } else {
            output.table(
                    List.of("decision", "reason", "audit id"),
                    List.of(List.of(
                            decision.allowed() ? "ALLOWED" : "DENIED",
                            decision.reason().orElse("-"),
                            decision.auditId())));
            decision.approvalId()
                    .ifPresent(id -> output.note("A person must approve first: approval " + id + " (POST /approvals/"
                            + id + "/approve), then ask again."));
            JsonNode detail = decision.raw().path("reasonDetail");
            if (detail.isTextual()) {
                output.note(detail.asText());
            }
        }
        return decision.allowed() ? ExitCodes.OK : ExitCodes.DENIED;
    }

    private Map<String, Object> context() {
        if (context == null) {
            return Map.of();
        }
        Object parsed = value(context);
        if (!(parsed instanceof Map<?, ?> map)) {
            throw new IllegalArgumentException("--context must be a JSON object, got " + context);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> object = (Map<String, Object>) map;
        return object;
    }

    /** JSON when it parses (numbers, booleans, objects, quoted strings), else the text itself. */
    static Object value(String text) {
        try {
            return JSON.readValue(text, Object.class);
        } catch (java.io.IOException e) {
            return text;
        }
    }
}
