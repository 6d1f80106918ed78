package dev.warden.api.users;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Optional;
import java.util.Set;

/**
 * First-run setup and administrator sessions under {@code /auth} (docs/sign-in.md, "First-run setup and
 * administrators"):
 *
 * <ul>
 *   <li>{@code POST /setup} (public, 5 per IP per minute) {@code {"setupToken", "username", "password", "email"?,
 *       "displayName"?}}: 201 {@code {"user", "token"}} and the session cookie; 401 {@code setup_token_invalid};
 *   <li>{@code POST /setup/complete} (session) {@code {"setupToken"}}: 200 {@code {"user", "administrator": true}};
 *       409 until a passkey or TOTP is enrolled;
 *   <li>{@code POST /admin-session} (session with a second factor, administrators): 201 {@code {"token",
 *       "expiresAt"}}.
 * </ul>
 */
public final class AdministratorRoutes implements DeclaredService {
    private static final Set<String> SETUP_FIELDS =
            Set.of("setupToken", "username", "password", "email", "displayName");
    private static final Set<String> COMPLETE_FIELDS = Set.of("setupToken");

    private final Administrators administrators;
    private final SessionCookies cookies;
    private final ClientIp clientIp;
    private final long maxBodyBytes;

    public AdministratorRoutes(
            Administrators administrators, SessionCookies cookies, ClientIp clientIp, long maxBodyBytes) {
        this.administrators = administrators;
        this.cookies = cookies;
        this.clientIp = clientIp;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/setup", Access.open(), this::setUp)
                .post("/setup/complete", Access.session(), this::complete)
                .post("/admin-session", Access.session(), this::adminSession);
    }

    private void setUp(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), SETUP_FIELDS);
        Optional<String> token = in.requiredString("setupToken", 100);
        Optional<String> username = UserRoutes.rawString(in, "username");
        Optional<String> password = UserRoutes.rawString(in, "password");
        Optional<String> email = in.optionalString("email", 254);
        Optional<String> displayName = in.optionalString("displayName", 200);
        in.validate();
        UserService.SignedIn signedIn = administrators.setUp(
                token.orElseThrow(),
                new UserService.SignUp(username.orElseThrow(), password.orElseThrow(), email, displayName),
                Origin.of(req, clientIp));
        UserRoutes.answer(req, res, Status.CREATED_201, signedIn, cookies);
    }

    private void complete(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), COMPLETE_FIELDS);
        Optional<String> token = in.requiredString("setupToken", 100);
        in.validate();
        User user = administrators.completeSetup(AuthFilter.principal(req), token.orElseThrow());
        ObjectNode body = Json.mapper().createObjectNode();
        body.set("user", UserRoutes.render(user));
        body.put("administrator", true);
        Responses.json(res, Status.OK_200, body);
    }

    private void adminSession(ServerRequest req, ServerResponse res) {
        Administrators.AdminSession session = administrators.startAdminSession(AuthFilter.principal(req));
        res.header("Cache-Control", "no-store");
        Responses.json(
                res,
                Status.CREATED_201,
                Json.mapper()
                        .createObjectNode()
                        .put("token", session.token())
                        .put("expiresAt", Json.timestamp(session.expiresAt())));
    }
}
