package dev.warden.api.users;

import dev.warden.api.Component;
import dev.warden.api.WardenApi;
import dev.warden.api.auth.CredentialRevocations;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.observe.HealthCheck;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.mail.MailConfig;
import dev.warden.api.users.mail.MailOutbox;
import dev.warden.api.users.passkeys.JdbcPasskeyRepository;
import dev.warden.api.users.passkeys.PasskeyService;
import dev.warden.api.users.passkeys.RelyingParty;
import dev.warden.api.users.totp.JdbcTotpRepository;
import dev.warden.api.users.totp.TotpService;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The wired username plugin of one process: the service (also the authenticator's session resolver), its
 * routes and the session cookie. Built by the launcher and by tests alike.
 */
public record UsersComponent(
        UserService service,
        UserRoutes routes,
        TotpRoutes totpRoutes,
        EmailRoutes emailRoutes,
        PasskeyRoutes passkeyRoutes,
        PasskeySignIn passkeySignIn,
        Administrators administrators,
        AdministratorRoutes administratorRoutes,
        SessionCookies cookies,
        MailOutbox mail)
        implements Component {

    /**
     * Wires the plugin on {@code db} and {@code outbox}; TOTP secrets and queued mail are sealed with
     * {@code keyEncryption} (the key-encryption key, as signing keys are); links in mail start with
     * {@code publicOrigin}, which is also the passkeys' relying party; a password reset ends the user's OAuth grants through {@code grants}; ending sessions moves
     * {@code revocations}. Starts the mail worker.
     */
    public static UsersComponent create(
            UsersConfig config,
            Database db,
            EventOutbox outbox,
            ClientIp clientIp,
            InstantSource clock,
            long maxBodyBytes,
            SecretCipher keyEncryption,
            MailConfig mailConfig,
            Supplier<String> publicOrigin,
            EmailAccounts.GrantRevocation grants,
            CredentialRevocations revocations) {
        TotpService totp = new TotpService(new JdbcTotpRepository(db), keyEncryption);
        PasswordHasher hasher = new PasswordHasher(config.password());
        UserService service = new UserService(
                new JdbcUserRepository(db, revocations), config, hasher, outbox, clock, Optional.of(totp));
        MailOutbox mail = MailOutbox.create(mailConfig, db, keyEncryption, clock);
        EmailAccounts email = new EmailAccounts(service, db, mail, publicOrigin, hasher, config, grants, outbox, clock);
        mail.start(email::resolveIntent);
        SessionCookies cookies = new SessionCookies(config.session(), clientIp, service);
        PasskeyService passkeys = new PasskeyService(new JdbcPasskeyRepository(db), new RelyingParty(publicOrigin));
        PasskeySignIn passkeySignIn = new PasskeySignIn(passkeys, service, clock);
        Administrators administrators =
                new Administrators(new JdbcAdministratorRepository(db), service, totp, passkeys, clock);
        return new UsersComponent(
                service,
                new UserRoutes(service, cookies, clientIp, maxBodyBytes),
                new TotpRoutes(service, totp, cookies, clientIp, clock, maxBodyBytes),
                new EmailRoutes(email, cookies, clientIp, maxBodyBytes),
                new PasskeyRoutes(service, passkeys, passkeySignIn, cookies, clientIp, clock, maxBodyBytes),
                passkeySignIn,
                administrators,
                new AdministratorRoutes(administrators, cookies, clientIp, maxBodyBytes),
                cookies,
                mail);
    }

    /** Sign-up, sign-in and sessions under {@code /auth}. */
    @Override
    public List<WardenApi.Mount> mounts() {
        return List.of(
                new WardenApi.Mount("/auth", routes),
                new WardenApi.Mount("/auth", totpRoutes),
                new WardenApi.Mount("/auth", emailRoutes),
                new WardenApi.Mount("/auth", passkeyRoutes),
                new WardenApi.Mount("/auth", administratorRoutes));
    }

    /** {@code mail}: whether mail is being delivered. */
    @Override
    public List<HealthCheck> healthChecks() {
        return List.of(mail.health());
    }

    /** Stops the mail worker; what it had not delivered waits in {@code mail_outbox}. */
    @Override
    public void close() {
        mail.close();
    }
}
