package dev.warden.api.console;

import dev.warden.api.access.Access;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;
import java.util.Optional;

/**
 * The health page, for the administrator view only: this process's health checks (roles, consumers, sinks with
 * their reasons), the doctor's findings with their fixes, and the newest dead letters.
 */
final class HealthPage implements DeclaredService {
    /** Dead letters shown, newest first. */
    static final int DEAD_LETTERS = 20;

    private final Operations operations;
    private final ConsoleSession session;
    private final ConsolePages pages;

    HealthPage(Operations operations, ConsoleSession session, ConsolePages pages) {
        this.operations = operations;
        this.session = session;
        this.pages = pages;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/health", Access.open(), this::health);
    }

    private void health(ServerRequest req, ServerResponse res) {
        Optional<ConsoleSession.Operator> user = session.signedIn(req, res);
        if (user.isEmpty()) {
            return;
        }
        if (!user.get().administratorView()) {
            throw new ForbiddenException(
                    ErrorCode.FORBIDDEN,
                    "health and the doctor are for the administrator: open the administrator view");
        }
        Map<String, Object> params = session.params(req, res, user.get(), "health");
        params.put("checks", operations.health());
        params.put("findings", operations.findings());
        params.put("deadLetters", operations.deadLetters(DEAD_LETTERS));
        pages.send(res, Status.OK_200, "console/health.jte", params);
    }
}
