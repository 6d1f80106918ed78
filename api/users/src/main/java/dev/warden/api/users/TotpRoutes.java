package dev.warden.api.users;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.auth.AuthFilter;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.api.ratelimit.ClientIp;
import dev.warden.api.users.totp.TotpService;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;

/**
 * TOTP under {@code /auth/totp} (docs/sign-in.md, "TOTP"):
 *
 * <ul>
 *   <li>{@code GET /totp} (session): {@code {"enrolled", "recoveryCodesLeft"}};
 *   <li>{@code POST /totp/enrol} (session): 201 {@code {"secret", "otpauthUri", "qrSvg"}}, 409
 *       {@code already_enrolled};
 *   <li>{@code POST /totp/confirm} (session) {@code {"code"}}: 200 {@code {"recoveryCodes": [10]}}, shown once;
 *   <li>{@code POST /totp/verify} (public, 10 per minute per IP) {@code {"challenge", "code" | "recoveryCode"}}:
 *       completes a sign-in that answered {@code totp_required}, as sign-in answers; 401 {@code totp_invalid};
 *   <li>{@code DELETE /totp} (session) {@code {"code" | "recoveryCode"}}: 204, given a fresh second factor.
 * </ul>
 */
public final class TotpRoutes implements DeclaredService {
    private static final Set<String> CODE_FIELDS = Set.of("code");
    private static final Set<String> ANSWER_FIELDS = Set.of("code", "recoveryCode");
    private static final Set<String> VERIFY_FIELDS = Set.of("challenge", "code", "recoveryCode");

    private final UserService users;
    private final TotpService totp;
    private final SessionCookies cookies;
    private final ClientIp clientIp;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public TotpRoutes(
            UserService users,
            TotpService totp,
            SessionCookies cookies,
            ClientIp clientIp,
            InstantSource clock,
            long maxBodyBytes) {
        this.users = users;
        this.totp = totp;
        this.cookies = cookies;
        this.clientIp = clientIp;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/totp", Access.session(), this::status)
                .post("/totp/enrol", Access.session(), this::enrol)
                .post("/totp/confirm", Access.session(), this::confirm)
                .post("/totp/verify", Access.open(), this::verify)
                .delete("/totp", Access.session(), this::remove);
    }

    private void status(ServerRequest req, ServerResponse res) {
        Principal.User user = AccessPolicy.requireSession(AuthFilter.principal(req));
        boolean enrolled = totp.enrolled(user.id());
        ObjectNode body = Json.mapper().createObjectNode().put("enrolled", enrolled);
        body.put("recoveryCodesLeft", enrolled ? totp.recoveryCodesLeft(user.id()) : 0);
        Responses.json(res, Status.OK_200, body);
    }

    private void enrol(ServerRequest req, ServerResponse res) {
        Principal.User user = AccessPolicy.requireSession(AuthFilter.principal(req));
        String username = users.current(AuthFilter.principal(req)).user().username();
        TotpService.Enrolment enrolment = totp.enrol(user.id(), username, clock.instant());
        res.header("Cache-Control", "no-store");
        Responses.json(
                res,
                Status.CREATED_201,
                Json.mapper()
                        .createObjectNode()
                        .put("secret", enrolment.secret())
                        .put("otpauthUri", enrolment.otpauthUri())
                        .put("qrSvg", enrolment.qrSvg()));
    }

    private void confirm(ServerRequest req, ServerResponse res) {
        Principal.User user = AccessPolicy.requireSession(AuthFilter.principal(req));
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), CODE_FIELDS);
        Optional<String> code = in.requiredString("code", 16);
        in.validate();
        ObjectNode body = Json.mapper().createObjectNode();
        ArrayNode codes = body.putArray("recoveryCodes");
        totp.confirm(user.id(), code.orElseThrow(), now()).forEach(codes::add);
        res.header("Cache-Control", "no-store");
        Responses.json(res, Status.OK_200, body);
    }

    private void verify(ServerRequest req, ServerResponse res) {
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), VERIFY_FIELDS);
        Optional<String> challenge = in.requiredString("challenge", 100);
        TotpService.Answer answer = answer(in);
        in.validate();
        UserRoutes.answer(
                req,
                res,
                Status.OK_200,
                users.completeSignIn(challenge.orElseThrow(), answer, Origin.of(req, clientIp)),
                cookies);
    }

    private void remove(ServerRequest req, ServerResponse res) {
        Principal.User user = AccessPolicy.requireSession(AuthFilter.principal(req));
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), ANSWER_FIELDS);
        TotpService.Answer answer = answer(in);
        in.validate();
        totp.remove(user.id(), answer, now());
        Responses.noContent(res);
    }

    /** Exactly one of {@code code} and {@code recoveryCode}. */
    private static TotpService.Answer answer(JsonInput in) {
        Optional<String> code = in.optionalString("code", 16);
        Optional<String> recovery = in.optionalString("recoveryCode", 32);
        if (code.isPresent() == recovery.isPresent()) {
            in.error("code", "give exactly one of code and recoveryCode");
        }
        return new TotpService.Answer(code, recovery);
    }

    private java.time.Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }
}
