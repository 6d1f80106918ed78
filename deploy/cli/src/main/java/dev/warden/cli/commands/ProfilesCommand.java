package dev.warden.cli.commands;

import dev.warden.cli.Profiles;
import dev.warden.cli.WardenCli;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code warden profiles}: the servers the CLI knows and which one commands use. */
@Command(name = "profiles", description = "List the profiles, or choose the current one.")
public final class ProfilesCommand {
    @Spec
    CommandSpec spec;

    @Command(name = "list", description = "The profiles: name, server, how they sign in; * marks the current one.")
    int list() {
        WardenCli cli = WardenCli.of(spec);
        String current = cli.profiles().current();
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<String, Profiles.Profile> e : cli.profiles().all().entrySet()) {
            rows.add(List.of(
                    e.getKey().equals(current) ? "*" : "",
                    e.getKey(),
                    e.getValue().url(),
                    e.getValue().method()));
        }
        cli.output().table(List.of("", "name", "server", "credentials"), rows);
        return 0;
    }

    @Command(name = "use", description = "Make NAME the current profile.")
    int use(@Parameters(paramLabel = "NAME") String name) {
        WardenCli cli = WardenCli.of(spec);
        if (!cli.profiles().use(name)) {
            throw new IllegalArgumentException(
                    "no profile '" + name + "': `warden --profile " + name + " login --server <url>` makes one");
        }
        cli.output().note("Using profile '" + name + "'.");
        return 0;
    }
}
