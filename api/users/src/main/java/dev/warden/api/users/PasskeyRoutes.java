package dev.warden.api.users;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.passkeys.Passkey;
import dev.warden.api.users.passkeys.PasskeyService;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;

/**
 * Passkeys under {@code /auth/passkeys} (docs/sign-in.md, "Passkeys"):
 *
 * <ul>
 *   <li>{@code GET /passkeys} (session): {@code {"passkeys": [...]}};
 *   <li>{@code POST /passkeys/registration/options} (session): {@code {"ceremony", "publicKey"}}, the creation
 *       options for {@code navigator.credentials.create} in their JSON form;
 *   <li>{@code POST /passkeys} (session) {@code {"ceremony", "credential", "name"?}}: 201, the passkey;
 *   <li>{@code DELETE /passkeys/{id}} (session): 204;
 *   <li>{@code POST /passkeys/sign-in/options} (public): {@code {"ceremony", "publicKey"}}, request options for
 *       {@code navigator.credentials.get};
 *   <li>{@code POST /passkeys/sign-in} (public) {@code {"ceremony", "credential"}}: 200 {@code {"user", "token"}}
 *       and the session cookie, as sign-in answers.
 * </ul>
 *
 * {@code credential} is the browser's {@code PublicKeyCredential.toJSON()}, as an object. The sign-in pair shares
 * one per-IP limit ({@code passkey-sign-in}).
 */
public final class PasskeyRoutes implements DeclaredService {
    private static final Set<String> REGISTER_FIELDS = Set.of("ceremony", "credential", "name");
    private static final Set<String> SIGN_IN_FIELDS = Set.of("ceremony", "credential");

    private final UserService users;
    private final PasskeyService passkeys;
    private final PasskeySignIn signIn;
    private final SessionCookies cookies;
    private final ClientIp clientIp;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public PasskeyRoutes(
            UserService users,
            PasskeyService passkeys,
            PasskeySignIn signIn,
            SessionCookies cookies,
            ClientIp clientIp,
            InstantSource clock,
            long maxBodyBytes) {
        this.users = users;
        this.passkeys = passkeys;
        this.signIn = signIn;
        this.cookies = cookies;
        this.clientIp = clientIp;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/passkeys", Access.session(), this::list)
                .post("/passkeys/registration/options", Access.session(), this::registrationOptions)
                .post("/passkeys", Access.session(), this::register)
                .delete("/passkeys/{id}", Access.session(), this::remove)
                .post("/passkeys/sign-in/options", Access.open(), this::signInOptions)
                .post("/passkeys/sign-in", Access.open(), this::signIn);
    }

    private void list(ServerRequest req, ServerResponse res) {
        Principal.User user = AccessPolicy.requireSession(AuthFilter.principal(req));
        ObjectNode body = Json.mapper().createObjectNode();
        ArrayNode list = body.putArray("passkeys");
        passkeys.list(user.id()).forEach(p -> list.add(render(p)));
        Responses.json(res, Status.OK_200, body);
    }

    private void registrationOptions(ServerRequest req, ServerResponse res) {
        UserService.CurrentSession current = users.current(AuthFilter.principal(req));
        User user = current.user();
        options(
                res,
                passkeys.registrationOptions(
                        user.id(), user.username(), user.displayName().orElse(user.username()), now()));
    }

    private void register(ServerRequest req, ServerResponse res) {
        Principal.User user = AccessPolicy.requireSession(AuthFilter.principal(req));
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), REGISTER_FIELDS);
        Optional<String> ceremony = in.requiredString("ceremony", 100);
        Optional<String> credential = credential(in);
        Optional<String> name = in.optionalString("name", PasskeyService.MAX_NAME);
        in.validate();
        Passkey passkey = passkeys.register(user.id(), ceremony.orElseThrow(), credential.orElseThrow(), name, now());
        Responses.json(res, Status.CREATED_201, render(passkey));
    }

    private void remove(ServerRequest req, ServerResponse res) {
        Principal.User user = AccessPolicy.requireSession(AuthFilter.principal(req));
        passkeys.remove(user.id(), Params.path(req, "id", v -> v), now());
        Responses.noContent(res);
    }

    private void signInOptions(ServerRequest req, ServerResponse res) {
        options(res, signIn.options());
    }

    private void signIn(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), SIGN_IN_FIELDS);
        Optional<String> ceremony = in.requiredString("ceremony", 100);
        Optional<String> credential = credential(in);
        in.validate();
        UserRoutes.answer(
                req,
                res,
                Status.OK_200,
                signIn.signIn(ceremony.orElseThrow(), credential.orElseThrow(), Origin.of(req, clientIp)),
                cookies);
    }

    /** {@code credential}: the browser's answer, an object, passed on as JSON text. */
    private static Optional<String> credential(JsonInput in) {
        Optional<JsonNode> raw = in.raw("credential");
        if (raw.isEmpty()) {
            in.error("credential", "is required");
            return Optional.empty();
        }
        if (!raw.get().isObject()) {
            in.error("credential", "must be an object: PublicKeyCredential.toJSON()");
            return Optional.empty();
        }
        return Optional.of(raw.get().toString());
    }

    private static void options(ServerResponse res, PasskeyService.Options options) {
        ObjectNode body = Json.mapper().createObjectNode().put("ceremony", options.ceremony());
        body.set("publicKey", options.publicKey());
        res.header("Cache-Control", "no-store");
        Responses.json(res, Status.OK_200, body);
    }

    static ObjectNode render(Passkey passkey) {
        ObjectNode node = Json.mapper()
                .createObjectNode()
                .put("id", passkey.id())
                .put("name", passkey.name())
                .put("backedUp", passkey.backedUp())
                .put("createdAt", Json.timestamp(passkey.createdAt()))
                .put("lastUsedAt", passkey.lastUsedAt().map(Json::timestamp).orElse(null));
        ArrayNode transports = node.putArray("transports");
        passkey.transports().forEach(transports::add);
        return node;
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
