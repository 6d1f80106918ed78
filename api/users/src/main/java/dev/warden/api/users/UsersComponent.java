package dev.warden.api.users;

import dev.warden.api.Component;
import dev.warden.api.WardenApi;
import dev.warden.api.events.EventOutbox;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.runtime.db.Database;
import java.time.InstantSource;
import java.util.List;

/**
 * The wired username plugin of one process: the service (also the authenticator's session resolver), its
 * routes and the session cookie. Built by the launcher and by tests alike.
 */
public record UsersComponent(UserService service, UserRoutes routes, SessionCookies cookies) implements Component {

    /** Wires the plugin on {@code db} and {@code outbox}. */
    public static UsersComponent create(
            UsersConfig config,
            Database db,
            EventOutbox outbox,
            ClientIp clientIp,
            InstantSource clock,
            long maxBodyBytes) {
        UserService service = new UserService(
                new JdbcUserRepository(db), config, new PasswordHasher(config.password()), outbox, clock);
        SessionCookies cookies = new SessionCookies(config.session(), clientIp);
        return new UsersComponent(service, new UserRoutes(service, cookies, clientIp, maxBodyBytes), cookies);
    }

    /** Sign-up, sign-in and sessions under {@code /auth}. */
    @Override
    public List<WardenApi.Mount> mounts() {
        return List.of(new WardenApi.Mount("/auth", routes));
    }
}
