package dev.warden.api.oauth.device;

import dev.warden.api.access.Access;
import dev.warden.api.access.Principal;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.RequestReader;
import dev.warden.api.oauth.authorize.AuthorizationFlow;
import dev.warden.api.oauth.authorize.Pages;
import dev.warden.api.oauth.clients.Clients;
import dev.warden.api.oauth.clients.OAuthClient;
import dev.warden.api.users.UserService;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The device verification page (RFC 8628 section 3.3), for a user signed in on this browser (otherwise the login
 * page first, then back here): {@code GET /auth/device[?user_code=...]} asks for the code the device shows;
 * {@code POST /auth/device/verify} with {@code user_code} shows what the device asks for (client, resource,
 * scopes), and with {@code decision=allow|deny} records the answer the device is polling for. Every form is
 * CSRF-protected; {@code POST /auth/device/verify} is rate-limited per address (the user code is guessable in
 * principle). A wrong or expired code says so without telling which.
 */
public final class DeviceVerificationRoutes implements DeclaredService {
    private static final String VERIFY = DeviceAuthorizationRoutes.VERIFICATION_PATH + "/verify";
    private static final String BAD_CODE =
            "That code is not valid, was already used or has expired. " + "Check the code your device shows.";

    private final AuthorizationFlow flow;
    private final DeviceCodes codes;
    private final Clients clients;
    private final UserService users;
    private final Pages pages;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public DeviceVerificationRoutes(
            AuthorizationFlow flow,
            DeviceCodes codes,
            Clients clients,
            UserService users,
            Pages pages,
            InstantSource clock,
            long maxBodyBytes) {
        this.flow = flow;
        this.codes = codes;
        this.clients = clients;
        this.users = users;
        this.pages = pages;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        rules.get("/", Access.open(), this::show).post("/verify", Access.open(), this::verify);
    }

    private void show(ServerRequest req, ServerResponse res) {
        String typed = req.query().first("user_code").asOptional().orElse("");
        Optional<String> code = UserCodes.normalize(typed);
        Optional<Principal.User> user = flow.signedIn(req);
        if (user.isEmpty()) {
            Pages.redirect(
                    res,
                    Status.FOUND_302,
                    flow.loginLocation(DeviceAuthorizationRoutes.VERIFICATION_PATH
                            + code.map(c -> "?user_code="
                                            + URLEncoder.encode(UserCodes.display(c), StandardCharsets.UTF_8))
                                    .orElse("")));
            return;
        }
        enter(req, res, Status.OK_200, user.get(), code.map(UserCodes::display).orElse(""), "");
    }

    private void verify(ServerRequest req, ServerResponse res) {
        Map<String, String> form = RequestReader.readForm(req, maxBodyBytes);
        if (!pages.csrfMatches(req, form)) {
            pages.formRefused(res);
            return;
        }
        Optional<String> code = UserCodes.normalize(form.getOrDefault("user_code", ""));
        Optional<Principal.User> user = flow.signedIn(req);
        if (user.isEmpty()) {
            Pages.redirect(res, Status.SEE_OTHER_303, flow.loginLocation(DeviceAuthorizationRoutes.VERIFICATION_PATH));
            return;
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Optional<DeviceCodes.DeviceRequest> request = code.flatMap(c -> codes.findPending(c, now));
        Optional<OAuthClient> client = request.flatMap(r -> clients.find(r.clientId()));
        if (request.isEmpty() || client.isEmpty()) {
            enter(req, res, Status.BAD_REQUEST_400, user.get(), "", BAD_CODE);
            return;
        }
        String decision = form.getOrDefault("decision", "");
        switch (decision) {
            case "" -> confirm(req, res, user.get(), code.get(), request.get(), client.get());
            case "allow", "deny" -> {
                boolean approve = decision.equals("allow");
                if (!codes.decide(
                        code.get(),
                        approve,
                        user.get().id().value(),
                        Optional.of(user.get().tokenId()),
                        now)) {
                    enter(req, res, Status.BAD_REQUEST_400, user.get(), "", BAD_CODE);
                    return;
                }
                Map<String, Object> params = new LinkedHashMap<>();
                params.put("approved", approve);
                params.put("clientName", client.get().displayName());
                pages.send(res, Status.OK_200, "oauth/device-done.jte", params);
            }
            default -> pages.error(res, Status.BAD_REQUEST_400, "Invalid request", "decision must be allow or deny");
        }
    }

    private void enter(
            ServerRequest req, ServerResponse res, Status status, Principal.User user, String userCode, String error) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("action", VERIFY);
        params.put("csrf", pages.csrfToken(req, res));
        params.put("username", users.current(user).user().username());
        params.put("userCode", userCode);
        params.put("error", error);
        pages.send(res, status, "oauth/device.jte", params);
    }

    private void confirm(
            ServerRequest req,
            ServerResponse res,
            Principal.User user,
            String code,
            DeviceCodes.DeviceRequest request,
            OAuthClient client) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("action", VERIFY);
        params.put("csrf", pages.csrfToken(req, res));
        params.put("username", users.current(user).user().username());
        params.put("userCode", UserCodes.display(code));
        params.put("clientName", client.displayName());
        params.put("resource", request.resource());
        params.put("scopes", List.of(request.scope().split(" ")));
        pages.send(res, Status.OK_200, "oauth/device-confirm.jte", params);
    }
}
