package dev.warden.api.console;

import dev.warden.api.Component;
import dev.warden.api.WardenApi;
import dev.warden.api.agents.AgentService;
import dev.warden.api.audit.JdbcAuditReader;
import dev.warden.api.oauth.authorize.Pages;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.UsersComponent;
import java.time.InstantSource;
import java.util.List;

/** The operator console at {@code /console} (docs/console.md): its pages and its assets. */
public record ConsoleComponent(ConsoleRoutes routes, ConsoleAssets assets, ConsolePages pages) implements Component {

    /** The console over {@code agents}, signed in with {@code users}' session cookie. */
    public static ConsoleComponent create(
            AgentService agents,
            JdbcAuditReader audit,
            UsersComponent users,
            ClientIp clientIp,
            InstantSource clock,
            long maxBodyBytes) {
        ConsolePages pages = new ConsolePages();
        return new ConsoleComponent(
                new ConsoleRoutes(
                        agents,
                        audit,
                        users.service(),
                        users.cookies(),
                        clientIp,
                        new Pages(clientIp),
                        pages,
                        clock,
                        maxBodyBytes),
                new ConsoleAssets(),
                pages);
    }

    @Override
    public List<WardenApi.Mount> mounts() {
        return List.of(
                new WardenApi.Mount("/console/assets", assets, pages), new WardenApi.Mount("/console", routes, pages));
    }
}
