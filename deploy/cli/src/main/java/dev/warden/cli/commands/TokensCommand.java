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

/** {@code warden tokens}: users' API tokens (for scripts and integrations). */
@Command(name = "tokens", description = "Create, list and revoke users' API tokens.")
public final class TokensCommand {
    static final List<Column> COLUMNS = List.of(
            Column.of("id", "id"),
            Column.of("name", "name"),
            Column.of("user", "userId"),
            Column.of("scopes", "scopes"),
            Column.of("expires", "expiresAt"),
            Column.of("created", "createdAt"));
    static final List<Column> ISSUED = List.of(
            Column.of("id", "id"),
            Column.of("name", "name"),
            Column.of("user", "userId"),
            Column.of("scopes", "scopes"),
            Column.of("token", "token"));

    @Spec
    CommandSpec spec;

    @Command(name = "create", description = "Create an API token; shown once.")
    int create(
            @Parameters(paramLabel = "NAME") String name,
            @Option(names = "--user", description = "For this user (administrator only; default: yourself).")
                    String user,
            @Option(
                            names = {"-s", "--scope"},
                            description = "A scope, like agents:read (repeatable; default all).")
                    List<String> scopes,
            @Option(names = "--expires-at", description = "When it stops working (RFC 3339).") String expiresAt) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        if (user != null) {
            body.put("userId", user);
        }
        if (scopes != null) {
            body.put("scopes", scopes);
        }
        if (expiresAt != null) {
            body.put("expiresAt", expiresAt);
        }
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().item(client.post("/auth/tokens", body), ISSUED);
        }
        cli.output().note("Keep the token now: it is not shown again.");
        return 0;
    }

    @Command(name = "list", description = "API tokens (their names and scopes, never the tokens).")
    int list(@Option(names = "--user", description = "This user's (administrator only).") String user) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().list(client.get(Paths.query("/auth/tokens", Paths.params("userId", user))), COLUMNS);
        }
        return 0;
    }

    @Command(name = "revoke", description = "Revoke an API token at once.")
    int revoke(@Parameters(paramLabel = "ID") String id) {
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            client.delete(Paths.of("/auth/tokens", id));
        }
        cli.output().note("Revoked " + id + ".");
        return 0;
    }
}
