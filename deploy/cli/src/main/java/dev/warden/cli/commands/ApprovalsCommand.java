package dev.warden.cli.commands;

import dev.warden.cli.Output.Column;
import dev.warden.cli.WardenCli;
import dev.warden.client.WardenClient;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code warden approvals}: the risky actions waiting for a person (docs/approvals.md), and deciding them. */
@Command(name = "approvals", description = "List approval requests, and approve or deny them.")
public final class ApprovalsCommand {
    static final List<Column> COLUMNS = List.of(
            Column.of("id", "id"),
            Column.of("status", "status"),
            Column.of("agent", "agentId"),
            Column.of("action", "action"),
            Column.of("resource", "resource"),
            Column.of("requested", "requestedAt"),
            Column.of("expires", "expiresAt"));

    @Spec
    CommandSpec spec;

    @Command(name = "list", description = "Requests you may decide or see, newest first.")
    int list(
            @Option(
                            names = "--status",
                            defaultValue = "pending",
                            description = "pending (default), approved, denied, expired, cancelled or used.")
                    String status,
            @Option(names = "--limit", description = "At most this many (1 to 200; default 50).") Integer limit) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output()
                    .list(
                            client.get(Paths.query("/approvals", Paths.params("status", status, "limit", limit))),
                            COLUMNS);
        }
        return 0;
    }

    @Command(name = "get", description = "One request, with its arguments.")
    int get(@Parameters(paramLabel = "ID") String id) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output()
                    .item(
                            client.get(Paths.of("/approvals", id)),
                            List.of(
                                    Column.of("id", "id"),
                                    Column.of("status", "status"),
                                    Column.of("agent", "agentId"),
                                    Column.of("action", "action"),
                                    Column.of("resource", "resource"),
                                    Column.of("arguments", "arguments"),
                                    Column.of("valid for", "validFor"),
                                    Column.of("expires", "expiresAt"),
                                    Column.of("decided by", "decidedBy"),
                                    Column.of("note", "note")));
        }
        return 0;
    }

    @Command(name = "approve", description = "Approve a pending request; the agent's next call goes through.")
    int approve(
            @Parameters(paramLabel = "ID") String id,
            @Option(names = "--note", description = "Why (kept with the request and in the audit log).") String note) {
        return decide(id, "approve", note);
    }

    @Command(name = "deny", description = "Deny a pending request.")
    int deny(
            @Parameters(paramLabel = "ID") String id,
            @Option(names = "--note", description = "Why (kept with the request and in the audit log).") String note) {
        return decide(id, "deny", note);
    }

    private int decide(String id, String decision, String note) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output()
                    .item(
                            client.post(
                                    Paths.of("/approvals", id, decision),
                                    note == null ? Map.of() : Map.of("note", note)),
                            COLUMNS);
        }
        return 0;
    }
}
