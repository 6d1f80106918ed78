package dev.warden.api.users;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.totp.TotpService;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The username plugin's HTTP surface, mounted at {@code /auth} (payloads in docs/users-and-rate-limits.md):
 *
 * <ul>
 *   <li>{@code POST /sign-up} (public) {@code {"username", "password", "email"?, "displayName"?}}: 201
 *       {@code {"user", "token"}} and the session cookie;</li>
 *   <li>{@code POST /sign-in} (public) {@code {"username", "password"}}: 200 {@code {"user", "token"}} and the
 *       cookie; 401 {@code INVALID_CREDENTIALS} for any bad pair;</li>
 *   <li>{@code POST /sign-out} (session): 204, the session ends at once and the cookie is cleared;</li>
 *   <li>{@code POST /change-username} (session) {@code {"username"}}: 200 {@code {"user"}};</li>
 *   <li>{@code GET /session} (session): 200 {@code {"user", "session"}}.</li>
 * </ul>
 *
 * The IP limits of sign-in and sign-up are applied before routing, by the rate-limit filter.
 */
public final class UserRoutes implements DeclaredService {
    private static final Set<String> SIGN_UP_FIELDS = Set.of("username", "password", "email", "displayName");
    private static final Set<String> SIGN_IN_FIELDS = Set.of("username", "password");
    private static final Set<String> RENAME_FIELDS = Set.of("username");
    /** Input bound for fields checked by policy later: keeps hashing and lookups cheap. */
    private static final int MAX_INPUT = 4096;

    private final UserService users;
    private final SessionCookies cookies;
    private final ClientIp clientIp;
    private final long maxBodyBytes;

    public UserRoutes(UserService users, SessionCookies cookies, ClientIp clientIp, long maxBodyBytes) {
        this.users = users;
        this.cookies = cookies;
        this.clientIp = clientIp;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.post("/sign-up", Access.open(), this::signUp)
                .post("/sign-in", Access.open(), this::signIn)
                .post("/sign-out", Access.session(), this::signOut)
                .post("/change-username", Access.session(), this::changeUsername)
                .get("/session", Access.session(), this::session)
                .post("/change-password", Access.session(), this::changePassword)
                .get("/sessions", Access.session(), this::sessions)
                .delete("/sessions/{id}", Access.session(), this::revokeSession)
                .post("/sessions/revoke-others", Access.session(), this::revokeOtherSessions);
    }

    private void signUp(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), SIGN_UP_FIELDS);
        Optional<String> username = rawString(in, "username");
        Optional<String> password = rawString(in, "password");
        Optional<String> email = in.optionalString("email", 254);
        Optional<String> displayName = in.optionalString("displayName", 200);
        in.validate();
        UserService.SignedIn signedIn = users.signUp(
                new UserService.SignUp(username.orElseThrow(), password.orElseThrow(), email, displayName),
                Origin.of(req, clientIp));
        answer(req, res, Status.CREATED_201, signedIn);
    }

    private static final Set<String> CREDENTIAL_FIELDS = Set.of("username", "password");

    private void signIn(ServerRequest req, ServerResponse res) {
        // The username and password are judged by the service alone: any unusable pair, a NUL in it included,
        // is the same 401 (SPEC Errors), never a 400 that would tell it apart.
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes, CREDENTIAL_FIELDS), SIGN_IN_FIELDS);
        Optional<String> username = rawString(in, "username");
        Optional<String> password = rawString(in, "password");
        in.validate();
        answer(
                req,
                res,
                Status.OK_200,
                users.signIn(username.orElseThrow(), password.orElseThrow(), Origin.of(req, clientIp)));
    }

    private void signOut(ServerRequest req, ServerResponse res) {
        users.signOut(AuthFilter.principal(req), clientIp.text(req));
        cookies.clear(req, res);
        Responses.noContent(res);
    }

    private void changeUsername(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), RENAME_FIELDS);
        Optional<String> username = rawString(in, "username");
        in.validate();
        User user = users.changeUsername(AuthFilter.principal(req), username.orElseThrow());
        ObjectNode body = Json.mapper().createObjectNode();
        body.set("user", render(user));
        Responses.json(res, Status.OK_200, body);
    }

    private void session(ServerRequest req, ServerResponse res) {
        UserService.CurrentSession current = users.current(AuthFilter.principal(req));
        ObjectNode body = Json.mapper().createObjectNode();
        body.set("user", render(current.user()));
        body.set("session", render(current.session()));
        Responses.json(res, Status.OK_200, body);
    }

    private static final Set<String> CHANGE_PASSWORD_FIELDS =
            Set.of("currentPassword", "code", "recoveryCode", "newPassword");

    private void changePassword(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), CHANGE_PASSWORD_FIELDS);
        Optional<String> current = in.optionalString("currentPassword", MAX_INPUT);
        Optional<String> code = in.optionalString("code", 16);
        Optional<String> recovery = in.optionalString("recoveryCode", 32);
        Optional<String> newPassword = rawString(in, "newPassword");
        if (code.isPresent() && recovery.isPresent()) {
            in.error("code", "give a code or a recovery code, not both");
        }
        in.validate();
        Optional<TotpService.Answer> factor = code.isPresent() || recovery.isPresent()
                ? Optional.of(new TotpService.Answer(code, recovery))
                : Optional.empty();
        List<String> ended = users.changePassword(
                AuthFilter.principal(req), current, factor, newPassword.orElseThrow(), Origin.of(req, clientIp));
        Responses.json(res, Status.OK_200, Json.mapper().createObjectNode().put("sessionsEnded", ended.size()));
    }

    private void sessions(ServerRequest req, ServerResponse res) {
        Principal caller = AuthFilter.principal(req);
        String currentId = caller instanceof Principal.User u ? u.tokenId() : "";
        ObjectNode body = Json.mapper().createObjectNode();
        ArrayNode list = body.putArray("sessions");
        for (UserRepository.ListedSession listed : users.sessions(caller)) {
            Session s = listed.session();
            list.addObject()
                    .put("id", s.id())
                    .put("current", s.id().equals(currentId))
                    .put("createdAt", Json.timestamp(s.createdAt()))
                    .put("lastUsedAt", Json.timestamp(s.refreshedAt()))
                    .put("expiresAt", Json.timestamp(s.expiresAt()))
                    .put("ip", listed.ip().orElse(null))
                    .put("userAgent", listed.userAgent().orElse(null))
                    .set("amr", Json.mapper().valueToTree(s.amr()));
        }
        Responses.json(res, Status.OK_200, body);
    }

    private void revokeSession(ServerRequest req, ServerResponse res) {
        String id = Params.path(req, "id", v -> v);
        users.revokeSession(AuthFilter.principal(req), id, Origin.of(req, clientIp));
        Responses.noContent(res);
    }

    private void revokeOtherSessions(ServerRequest req, ServerResponse res) {
        List<String> ended = users.revokeOtherSessions(AuthFilter.principal(req), Origin.of(req, clientIp));
        Responses.json(res, Status.OK_200, Json.mapper().createObjectNode().put("sessionsEnded", ended.size()));
    }

    private void answer(ServerRequest req, ServerResponse res, Status status, UserService.SignedIn signedIn) {
        answer(req, res, status, signedIn, cookies);
    }

    /** A fresh session: its cookie, and {@code {"user", "token"}}. */
    static void answer(
            ServerRequest req,
            ServerResponse res,
            Status status,
            UserService.SignedIn signedIn,
            SessionCookies cookies) {
        cookies.set(req, res, signedIn);
        ObjectNode body = Json.mapper().createObjectNode();
        body.set("user", render(signedIn.user()));
        body.put("token", signedIn.token());
        Responses.json(res, status, body);
    }

    /** A required string taken as is (blank allowed: the policies judge it). */
    static Optional<String> rawString(JsonInput in, String field) {
        Optional<JsonNode> raw = in.raw(field);
        if (raw.isEmpty()) {
            in.error(field, "is required");
            return Optional.empty();
        }
        if (!raw.get().isTextual()) {
            in.error(field, "must be a string");
            return Optional.empty();
        }
        if (raw.get().textValue().length() > MAX_INPUT) {
            in.error(field, "must be at most " + MAX_INPUT + " characters");
            return Optional.empty();
        }
        return Optional.of(raw.get().textValue());
    }

    static ObjectNode render(User user) {
        return Json.mapper()
                .createObjectNode()
                .put("id", user.id().value())
                .put("username", user.username())
                .put("email", user.email().orElse(null))
                .put("displayName", user.displayName().orElse(null))
                .put("createdAt", Json.timestamp(user.createdAt()));
    }

    static ObjectNode render(Session session) {
        return Json.mapper()
                .createObjectNode()
                .put("id", session.id())
                .put("createdAt", Json.timestamp(session.createdAt()))
                .put("expiresAt", Json.timestamp(session.expiresAt()))
                .put("absoluteExpiresAt", Json.timestamp(session.absoluteExpiresAt()))
                .set("amr", Json.mapper().valueToTree(session.amr()));
    }
}
