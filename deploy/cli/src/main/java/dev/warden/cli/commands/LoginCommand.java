package dev.warden.cli.commands;

import dev.warden.cli.Output;
import dev.warden.cli.Profiles;
import dev.warden.cli.WardenCli;
import dev.warden.client.DeviceLogin;
import dev.warden.client.WardenClient;
import dev.warden.client.WardenException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code warden login}: signs a person in through Warden's own OAuth device grant (RFC 8628) as the built-in public
 * client {@code warden-cli}: it shows a code and where to enter it, waits for the person to approve in a browser,
 * and keeps the refresh token in the profile. {@code --with-token} keeps an API token read from standard input
 * instead (for scripts and the bootstrap administrator).
 */
@Command(
        name = "login",
        description =
                "Sign in to a Warden server (device grant in a browser, or --with-token) and keep it as a profile.")
public final class LoginCommand implements Callable<Integer> {
    /** The CLI's public OAuth client, built into every Warden server. */
    public static final String CLIENT_ID = "warden-cli";
    /** What the CLI asks for: everything its commands do. */
    public static final String DEFAULT_SCOPE = "agents:read agents:write delegations:read delegations:write "
            + "authorize:write audit:read events:read webhooks:read webhooks:write approvals:read approvals:write";

    @Spec
    CommandSpec spec;

    @Option(names = "--server", description = "The server's URL (default: the profile's, else http://localhost:8080).")
    String server;

    @Option(names = "--with-token", description = "Read an API token from standard input instead of a browser sign-in.")
    boolean withToken;

    @Option(names = "--scope", description = "The scopes to ask for, space-separated (default: what the CLI uses).")
    String scope = DEFAULT_SCOPE;

    @Override
    public Integer call() throws InterruptedException {
        WardenCli cli = WardenCli.of(spec);
        Output output = cli.output();
        String name = cli.profileName();
        String url = Optional.ofNullable(server)
                .or(() -> cli.profiles().get(name).map(Profiles.Profile::url))
                .orElse("http://localhost:8080");
        URI base = checkedUrl(url);
        Profiles.Profile profile;
        if (withToken) {
            String token = firstLine(cli);
            try (WardenClient client = WardenClient.builder(base).token(token).build()) {
                verify(client);
            }
            profile = new Profiles.Profile(base.toString(), Optional.of(token), Optional.empty(), Optional.empty());
        } else {
            try (WardenClient client = WardenClient.builder(base).build()) {
                DeviceLogin login = client.deviceLogin(CLIENT_ID);
                DeviceLogin.Pending pending = login.start(scope, base.toString());
                output.note("Open " + pending.verificationUri() + " and enter the code " + pending.userCode());
                output.note("  (or open " + pending.verificationUriComplete() + ")");
                output.note("Waiting for the approval (the code is good for "
                        + java.time.Duration.between(java.time.Instant.now(), pending.expiresAt())
                                .toMinutes()
                        + " minutes)...");
                DeviceLogin.SignedIn signedIn = login.await(pending);
                profile = new Profiles.Profile(
                        base.toString(), Optional.empty(), Optional.of(CLIENT_ID), Optional.of(signedIn.session()));
            }
        }
        cli.profiles().put(name, profile, true);
        output.note("Signed in to " + base + " as profile '" + name + "' (" + profile.method() + "); kept in "
                + cli.profiles().file());
        return 0;
    }

    static URI checkedUrl(String url) {
        URI uri;
        try {
            uri = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--server is not a URL: " + url);
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
            throw new IllegalArgumentException("--server must be http(s)://host[:port], got " + url);
        }
        return uri;
    }

    private static String firstLine(WardenCli cli) {
        try {
            String line = new BufferedReader(new InputStreamReader(cli.in(), StandardCharsets.UTF_8)).readLine();
            if (line == null || line.isBlank()) {
                throw new IllegalArgumentException("--with-token reads the token from standard input; it was empty");
            }
            return line.strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A token the server does not know is a 401 on any route; a valid one without the scope is a 403. */
    private static void verify(WardenClient client) {
        try {
            client.get("/agents");
        } catch (WardenException e) {
            if (e.status() != 403) {
                throw e;
            }
        }
    }
}
