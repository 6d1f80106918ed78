package dev.warden.api.users;

import dev.warden.api.Component;
import dev.warden.api.WardenApi;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.totp.JdbcTotpRepository;
import dev.warden.api.users.totp.TotpService;
import dev.warden.runtime.db.Database;
import dev.warden.runtime.db.SecretCipher;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * The wired username plugin of one process: the service (also the authenticator's session resolver), its
 * routes and the session cookie. Built by the launcher and by tests alike.
 */
public record UsersComponent(UserService service, UserRoutes routes, TotpRoutes totpRoutes, SessionCookies cookies)
        implements Component {

    /**
     * Wires the plugin on {@code db} and {@code outbox}; TOTP secrets are sealed with {@code keyEncryption} (the
     * key-encryption key, as signing keys are).
     */
    public static UsersComponent create(
            UsersConfig config,
            Database db,
            EventOutbox outbox,
            ClientIp clientIp,
            InstantSource clock,
            long maxBodyBytes,
            SecretCipher keyEncryption) {
        TotpService totp = new TotpService(new JdbcTotpRepository(db), keyEncryption);
        UserService service = new UserService(
                new JdbcUserRepository(db),
                config,
                new PasswordHasher(config.password()),
                outbox,
                clock,
                Optional.of(totp));
        SessionCookies cookies = new SessionCookies(config.session(), clientIp);
        return new UsersComponent(
                service,
                new UserRoutes(service, cookies, clientIp, maxBodyBytes),
                new TotpRoutes(service, totp, cookies, clientIp, clock, maxBodyBytes),
                cookies);
    }

    /** Sign-up, sign-in and sessions under {@code /auth}. */
    @Override
    public List<WardenApi.Mount> mounts() {
        return List.of(new WardenApi.Mount("/auth", routes), new WardenApi.Mount("/auth", totpRoutes));
    }
}
