package dev.warden.cli.commands;

import dev.warden.cli.Profiles;
import dev.warden.cli.WardenCli;
import dev.warden.client.WardenClient;
import dev.warden.client.WardenException;
import java.net.URI;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code warden logout}: ends a device sign-in on the server (revokes its refresh token, which ends every token of
 * the grant) and forgets the profile's credentials. An API token is only forgotten: revoke it with
 * {@code warden tokens revoke}.
 */
@Command(name = "logout", description = "End the profile's sign-in (revoked on the server) and forget its credentials.")
public final class LogoutCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        WardenCli cli = WardenCli.of(spec);
        String name = cli.profileName();
        Profiles.Profile profile =
                cli.profiles().get(name).filter(Profiles.Profile::signedIn).orElse(null);
        if (profile == null) {
            cli.output().note("Profile '" + name + "' is not signed in.");
            return 0;
        }
        if (profile.session().isPresent()) {
            try (WardenClient client =
                    WardenClient.builder(URI.create(profile.url())).build()) {
                client.revokeToken(
                        profile.clientId().orElse(LoginCommand.CLIENT_ID),
                        profile.session().get().refreshToken());
            } catch (WardenException e) {
                cli.output()
                        .note("The server did not confirm the revocation (" + e.getMessage()
                                + "); the credentials are forgotten here anyway.");
            }
        }
        cli.profiles().put(name, profile.signedOut(), false);
        cli.output().note("Signed out of " + profile.url() + " (profile '" + name + "').");
        return 0;
    }
}
