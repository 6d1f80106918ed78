package dev.warden.cli;

import dev.warden.cli.commands.AgentsCommand;
import dev.warden.cli.commands.ApprovalsCommand;
import dev.warden.cli.commands.AuditCommand;
import dev.warden.cli.commands.AuthorizeCommand;
import dev.warden.cli.commands.DelegationsCommand;
import dev.warden.cli.commands.DoctorCommand;
import dev.warden.cli.commands.EventsCommand;
import dev.warden.cli.commands.LoginCommand;
import dev.warden.cli.commands.LogoutCommand;
import dev.warden.cli.commands.ProfilesCommand;
import dev.warden.cli.commands.TokensCommand;
import dev.warden.cli.commands.WebhooksCommand;
import dev.warden.client.WardenClient;
import dev.warden.client.WardenException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The {@code warden} command (docs/cli.md). Global options pick the profile and the output format; each
 * subcommand is a class of {@code dev.warden.cli.commands}. A refusal by the server prints its {@code code},
 * {@code detail} and request id on standard error and exits with the status {@link ExitCodes} documents.
 */
@Command(
        name = "warden",
        mixinStandardHelpOptions = true,
        version = "warden 0.1.0",
        description = "Identity, authorization and audit for fleets of AI agents.",
        subcommands = {
            LoginCommand.class,
            LogoutCommand.class,
            ProfilesCommand.class,
            AgentsCommand.class,
            DelegationsCommand.class,
            ApprovalsCommand.class,
            AuthorizeCommand.class,
            AuditCommand.class,
            EventsCommand.class,
            WebhooksCommand.class,
            TokensCommand.class,
            DoctorCommand.class,
            CommandLine.HelpCommand.class
        },
        scope = CommandLine.ScopeType.INHERIT,
        footer = {
            "",
            "Exit status: 0 done, 1 refused, 2 usage, 3 not signed in, 4 forbidden,",
            "5 not found, 6 conflict or limit, 7 server unreachable or failing,",
            "9 critical findings (doctor), 10 denied (authorize).",
            "Profiles and their credentials: profiles.json in $WARDEN_CONFIG_DIR",
            "(default ~/.config/warden). Reference: docs/cli.md."
        })
public final class WardenCli {
    @Option(
            names = "--profile",
            scope = CommandLine.ScopeType.INHERIT,
            description = "The profile to use (default: the current one; see `warden profiles`).")
    String profile;

    @Option(
            names = {"-o", "--output"},
            scope = CommandLine.ScopeType.INHERIT,
            defaultValue = "table",
            description = "table (for people) or json (the server's JSON, for scripts). Default: ${DEFAULT-VALUE}.")
    Output.Format format;

    private final Map<String, String> env;
    private final PrintWriter out;
    private final PrintWriter err;
    private final InputStream in;
    private final Profiles profiles;

    public WardenCli(Map<String, String> env, PrintWriter out, PrintWriter err, InputStream in) {
        this.env = env;
        this.out = out;
        this.err = err;
        this.in = in;
        this.profiles = new Profiles(Profiles.directory(env));
    }

    /** Runs the CLI alone (the runnable jar). */
    public static void main(String[] args) {
        System.exit(run(args, Map.of()));
    }

    /**
     * Runs the command line with {@code extra} commands beside the CLI's own (the developer distribution adds
     * {@code dev}, {@code serve} and {@code probe}: each takes the rest of the arguments as they are).
     */
    public static int run(String[] args, Map<String, ServerCommand> extra) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        return new WardenCli(System.getenv(), out, err, System.in).execute(args, extra);
    }

    /** Runs {@code args}; returns the exit status. */
    public int execute(String[] args, Map<String, ServerCommand> extra) {
        CommandLine cli = new CommandLine(this);
        extra.forEach((name, command) -> cli.addSubcommand(name, command.spec(name)));
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler(this::failed);
        cli.setParameterExceptionHandler((e, a) -> {
            err.println("warden: " + e.getMessage());
            CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
            err.println("Run `" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help` for usage.");
            return ExitCodes.USAGE;
        });
        if (args.length == 0) {
            cli.usage(out);
            return ExitCodes.USAGE;
        }
        return cli.execute(args);
    }

    private int failed(Exception e, CommandLine command, CommandLine.ParseResult parsed) throws Exception {
        switch (e) {
            case WardenException w -> {
                err.println("warden: " + w.code() + (w.detail().isEmpty() ? "" : ": " + w.detail()));
                w.errors().forEach(f -> err.println("  " + f.field() + ": " + f.message()));
                if (!w.requestId().isEmpty()) {
                    err.println("  request id: " + w.requestId());
                }
                if (w.status() == 401) {
                    err.println("  sign in again: warden login");
                }
                return ExitCodes.of(w);
            }
            case NotSignedInException n -> {
                err.println("warden: " + n.getMessage());
                return ExitCodes.NOT_SIGNED_IN;
            }
            case IllegalArgumentException i -> {
                err.println("warden: " + i.getMessage());
                return ExitCodes.USAGE;
            }
            case IllegalStateException s -> {
                err.println("warden: " + s.getMessage());
                return ExitCodes.REFUSED;
            }
            case UncheckedIOException u -> {
                err.println("warden: " + u.getMessage());
                return ExitCodes.REFUSED;
            }
            default -> throw e;
        }
    }

    /** The command line has no credentials for the profile. */
    public static final class NotSignedInException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotSignedInException(String message) {
            super(message);
        }
    }

    // ------------------------------------------------------------------ what commands share

    /** The profiles store. */
    public Profiles profiles() {
        return profiles;
    }

    /** The name of the profile this run uses. */
    public String profileName() {
        return profile != null ? profile : profiles.current();
    }

    /** The output of this run. */
    public Output output() {
        return new Output(format == null ? Output.Format.table : format, out, err);
    }

    public InputStream in() {
        return in;
    }

    public Map<String, String> env() {
        return env;
    }

    /** A client of the profile's server with its credentials; a rotated refresh token is stored at once. */
    public WardenClient client() {
        String name = profileName();
        Profiles.Profile p = profiles.get(name)
                .filter(Profiles.Profile::signedIn)
                .orElseThrow(() -> new NotSignedInException("not signed in"
                        + (name.equals(Profiles.DEFAULT) ? "" : " with profile '" + name + "'")
                        + ": run `warden login --server <url>`"));
        WardenClient.Builder b = WardenClient.builder(URI.create(p.url()));
        if (p.token().isPresent()) {
            b.token(p.token().get());
        } else {
            String clientId = p.clientId().orElse(LoginCommand.CLIENT_ID);
            b.session(
                    clientId,
                    p.session().orElseThrow(),
                    renewed -> profiles.put(
                            name,
                            new Profiles.Profile(p.url(), p.token(), p.clientId(), java.util.Optional.of(renewed)),
                            false));
        }
        return b.build();
    }

    /** The root of a parsed command line (for subcommands). */
    public static WardenCli of(CommandSpec spec) {
        return (WardenCli) spec.root().userObject();
    }

    /** A command of the distribution that takes its arguments as they are (dev, serve, probe). */
    public record ServerCommand(String description, Function<String[], Integer> run) {
        CommandSpec spec(String name) {
            CommandSpec spec = CommandSpec.forAnnotatedObject(new PassThrough(name, run));
            spec.usageMessage().description(description);
            return spec;
        }
    }

    @Command
    private static final class PassThrough implements java.util.concurrent.Callable<Integer> {
        @CommandLine.Unmatched
        java.util.List<String> rest = new java.util.ArrayList<>();

        private final String name;
        private final Function<String[], Integer> run;

        PassThrough(String name, Function<String[], Integer> run) {
            this.name = name;
            this.run = run;
        }

        @Override
        public Integer call() {
            java.util.List<String> args = new java.util.ArrayList<>();
            args.add(name);
            args.addAll(rest);
            return run.apply(args.toArray(String[]::new));
        }
    }
}
