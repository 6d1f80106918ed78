package dev.warden.cli.commands;

import dev.warden.cli.Output.Column;
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

/** {@code warden webhooks}: endpoints that receive events, signed per Standard Webhooks. */
@Command(name = "webhooks", description = "Register, list and delete webhook endpoints.")
public final class WebhooksCommand {
    static final List<Column> COLUMNS = List.of(
            Column.of("id", "id"),
            Column.of("url", "url"),
            Column.of("events", "eventTypes"),
            Column.of("status", "status"),
            Column.of("created", "createdAt"));
    static final List<Column> ISSUED = List.of(
            Column.of("id", "id"),
            Column.of("url", "url"),
            Column.of("events", "eventTypes"),
            Column.of("secret", "secret"));

    @Spec
    CommandSpec spec;

    @Command(name = "create", description = "Register an endpoint; its signing secret is shown once.")
    int create(
            @Parameters(paramLabel = "URL") String url,
            @Option(
                            names = {"-t", "--type"},
                            description = "Only these event types (repeatable).")
                    List<String> types,
            @Option(names = "--description", description = "What it is for.") String description) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("url", url);
        if (types != null) {
            body.put("eventTypes", types);
        }
        if (description != null) {
            body.put("description", description);
        }
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().item(client.post("/webhooks", body), ISSUED);
        }
        cli.output().note("Keep the secret now: receivers verify deliveries with it, and it is not shown again.");
        return 0;
    }

    @Command(name = "list", description = "Your endpoints.")
    int list() {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().list(client.get("/webhooks"), COLUMNS);
        }
        return 0;
    }

    @Command(name = "get", description = "One endpoint.")
    int get(@Parameters(paramLabel = "ID") String id) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().item(client.get(Paths.of("/webhooks", id)), COLUMNS);
        }
        return 0;
    }

    @Command(name = "delete", description = "Delete an endpoint; nothing more is sent to it.")
    int delete(@Parameters(paramLabel = "ID") String id) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            client.delete(Paths.of("/webhooks", id));
        }
        cli.output().note("Deleted " + id + ".");
        return 0;
    }
}
