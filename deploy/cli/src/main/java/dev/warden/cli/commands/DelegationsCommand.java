package dev.warden.cli.commands;

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

/** {@code warden delegations}: one agent lends a subset of its permissions to another. */
@Command(name = "delegations", description = "Delegate permissions from one agent to another, list and revoke them.")
public final class DelegationsCommand {
    static final List<Column> COLUMNS = List.of(
            Column.of("id", "id"),
            Column.of("from", "fromAgent"),
            Column.of("to", "toAgent"),
            new Column("permissions", d -> Output.permissions(d.path("permissions"))),
            Column.of("depth", "depth"),
            Column.of("expires", "expiresAt"));

    @Spec
    CommandSpec spec;

    @Command(name = "create", description = "Delegate permissions (a subset of the delegating agent's).")
    int create(
            @Option(names = "--from", required = true, description = "The delegating agent's id.") String from,
            @Option(names = "--to", required = true, description = "The receiving agent's id.") String to,
            @Option(
                            names = {"-p", "--permission"},
                            required = true,
                            paramLabel = "RESOURCE=ACTIONS",
                            description = "A permission, like mcp:github:*=read (repeatable).")
                    List<String> permissions,
            @Option(names = "--expires-at", description = "When it ends (RFC 3339).") String expiresAt,
            @Option(names = "--max-depth", description = "How often it may be delegated on.") Integer maxDepth) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("fromAgent", from);
        body.put("toAgent", to);
        body.put("permissions", PermissionSpec.parseAll(permissions));
        if (expiresAt != null) {
            body.put("expiresAt", expiresAt);
        }
        if (maxDepth != null) {
            body.put("maxDepth", maxDepth);
        }
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().item(client.post("/delegations", body), COLUMNS);
        }
        return 0;
    }

    @Command(name = "list", description = "The delegations you may see.")
    int list(
            @Option(names = "--from", description = "Only those from this agent.") String from,
            @Option(names = "--to", description = "Only those to this agent.") String to) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output()
                    .list(
                            client.get(Paths.query("/delegations", Paths.params("fromAgent", from, "toAgent", to))),
                            COLUMNS);
        }
        return 0;
    }

    @Command(name = "revoke", description = "Revoke a delegation (and every one made through it) at once.")
    int revoke(@Parameters(paramLabel = "ID") String id) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            client.delete(Paths.of("/delegations", id));
        }
        cli.output().note("Revoked " + id + ".");
        return 0;
    }
}
