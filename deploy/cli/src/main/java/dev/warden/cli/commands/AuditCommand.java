package dev.warden.cli.commands;

import dev.warden.cli.Output.Column;
import dev.warden.cli.WardenCli;
import dev.warden.client.WardenClient;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code warden audit}: search the audit log, or export it to a file. */
@Command(name = "audit", description = "Search or export the audit log.")
public final class AuditCommand {
    static final List<Column> COLUMNS = List.of(
            Column.of("time", "timestamp"),
            Column.of("result", "result"),
            Column.of("agent", "agentId"),
            Column.of("action", "action"),
            Column.of("resource", "resource"),
            Column.of("reason", "reason"),
            Column.of("id", "id"));

    /** The filters both subcommands take. */
    static final class Filters {
        @Option(names = "--agent", description = "Only this agent's entries.")
        String agent;

        @Option(names = "--user", description = "Only this user's entries.")
        String user;

        @Option(names = "--since", description = "From this time on (RFC 3339).")
        String since;

        @Option(names = "--until", description = "Up to this time (RFC 3339).")
        String until;

        @Option(names = "--action", description = "Only these actions (comma-separated).")
        String actions;

        @Option(names = "--result", description = "allowed, denied or rate_limited.")
        String result;

        Map<String, Object> query() {
            return Paths.params(
                    "agentId", agent, "userId", user, "since", since, "until", until, "actions", actions, "result",
                    result);
        }
    }

    @Spec
    CommandSpec spec;

    @Command(name = "search", description = "Entries matching the filters, newest first.")
    int search(
            @Mixin Filters filters,
            @Option(names = "--limit", defaultValue = "50", description = "At most this many (default 50).") int limit,
            @Option(names = "--offset", defaultValue = "0", description = "Skip this many.") int offset) {
        Map<String, Object> query = filters.query();
        query.put("limit", limit);
        query.put("offset", offset);
        WardenCli cli = WardenCli.of(spec);
        try (WardenClient client = cli.client()) {
            cli.output().list(client.get(Paths.query("/audit", query)), COLUMNS);
        }
        return 0;
    }

    @Command(name = "export", description = "Export every matching entry to a file (CSV or JSON), with progress.")
    int export(
            @Mixin Filters filters,
            @Option(names = "--format", defaultValue = "csv", description = "csv or json (default csv).") String format,
            @Option(
                            names = {"-f", "--file"},
                            required = true,
                            description = "The file to write ('-': standard output).")
                    String file) {
        if (!format.equals("csv") && !format.equals("json")) {
            throw new IllegalArgumentException("--format must be csv or json, got " + format);
        }
        Map<String, Object> query = Paths.params("format", format);
        query.putAll(filters.query());
        WardenCli cli = WardenCli.of(spec);
        String path = Paths.query("/audit/export", query);
        String accept = format.equals("csv") ? "text/csv" : "application/json";
        try (WardenClient client = cli.client()) {
            if (file.equals("-")) {
                OutputStream out = System.out;
                client.download(path, accept, out, bytes -> {});
                out.flush();
                return 0;
            }
            // Written beside the target and moved into place: an interrupted export leaves no half file.
            Path target = Path.of(file).toAbsolutePath();
            Path temp = target.resolveSibling(target.getFileName() + ".part");
            long bytes;
            try (OutputStream out = Files.newOutputStream(temp)) {
                bytes = client.download(
                        path, accept, out, copied -> cli.output().note("  " + copied / 1024 + " KiB"));
            }
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            cli.output().note("Exported " + bytes + " bytes to " + target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
        return 0;
    }
}
