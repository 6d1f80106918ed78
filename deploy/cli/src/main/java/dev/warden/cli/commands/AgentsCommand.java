package dev.warden.cli.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.warden.cli.Output;
import dev.warden.cli.Output.Column;
import dev.warden.cli.PermissionSpec;
import dev.warden.cli.WardenCli;
import dev.warden.client.WardenClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code warden agents}: register, list, inspect, suspend, resume, revoke and rotate agents. */
@Command(name = "agents", description = "Register and manage agents.")
public final class AgentsCommand {
    static final List<Column> LIST = List.of(
            Column.of("id", "id"),
            Column.of("name", "name"),
            Column.of("type", "type"),
            Column.of("status", "status"),
            Column.of("owner", "ownerId"),
            new Column("permissions", a -> Output.permissions(a.path("permissions"))));
    static final List<Column> ONE = List.of(
            Column.of("id", "id"),
            Column.of("name", "name"),
            Column.of("type", "type"),
            Column.of("status", "status"),
            Column.of("owner", "ownerId"),
            Column.of("tenant", "tenantId"),
            new Column("permissions", a -> Output.permissions(a.path("permissions"))),
            Column.of("expires", "expiresAt"),
            Column.of("created", "createdAt"),
            Column.of("updated", "updatedAt"));
    /** What is shown once: the agent and its token. */
    static final List<Column> ISSUED = List.of(
            Column.of("id", "id"),
            Column.of("name", "name"),
            Column.of("status", "status"),
            Column.of("token", "token"));

    @Spec
    CommandSpec spec;

    @Command(name = "create", description = "Register an agent; its token is shown once.")
    int create(
            @Parameters(paramLabel = "NAME", description = "The agent's name.") String name,
            @Option(names = "--owner", required = true, description = "The owner's user id.") String owner,
            @Option(
                            names = "--type",
                            defaultValue = "autonomous",
                            description = "autonomous, assistant or service. Default: ${DEFAULT-VALUE}.")
                    String type,
            @Option(
                            names = {"-p", "--permission"},
                            paramLabel = "RESOURCE=ACTIONS",
                            description = "A permission, like mcp:github:*=read,write (repeatable).")
                    List<String> permissions,
            @Option(names = "--tenant", description = "The tenant id.") String tenant) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ownerId", owner);
        body.put("name", name);
        body.put("type", type);
        body.put("permissions", PermissionSpec.parseAll(permissions == null ? List.of() : permissions));
        if (tenant != null) {
            body.put("tenantId", tenant);
        }
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().item(client.post("/agents", body), ISSUED);
        }
        cli.output().note("Keep the token now: it is not shown again (`warden agents rotate` issues a new one).");
        return 0;
    }

    @Command(name = "list", description = "The agents you may see.")
    int list(@Option(names = "--tenant", description = "Only this tenant's.") String tenant) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().list(client.get(Paths.query("/agents", Paths.params("tenantId", tenant))), LIST);
        }
        return 0;
    }

    @Command(name = "get", description = "One agent.")
    int get(@Parameters(paramLabel = "ID") String id) {
        return show(id, "", null);
    }

    @Command(name = "suspend", description = "Suspend an agent: every decision for it is a denial until resumed.")
    int suspend(@Parameters(paramLabel = "ID") String id) {
        return show(id, "suspend", "post");
    }

    @Command(name = "resume", description = "Resume a suspended agent.")
    int resume(@Parameters(paramLabel = "ID") String id) {
        return show(id, "resume", "post");
    }

    @Command(name = "rotate", description = "Issue a new token (the old one stops working at once); shown once.")
    int rotate(@Parameters(paramLabel = "ID") String id) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().item(client.post(Paths.of("/agents", id, "rotate"), Map.of()), ISSUED);
        }
        return 0;
    }

    @Command(name = "revoke", description = "Revoke an agent for good: its tokens and delegations end at once.")
    int revoke(@Parameters(paramLabel = "ID") String id) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            client.delete(Paths.of("/agents", id));
        }
        cli.output().note("Revoked " + id + ".");
        return 0;
    }

    private int show(String id, String action, String method) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            JsonNode agent = method == null
                    ? client.get(Paths.of("/agents", id))
                    : client.post(Paths.of("/agents", id, action), Map.of());
            cli.output().item(agent, ONE);
        }
        return 0;
    }
}
