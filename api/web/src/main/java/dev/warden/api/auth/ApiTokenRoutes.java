package dev.warden.api.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.access.Access;
import dev.warden.api.access.AccessPolicy;
import dev.warden.api.access.Principal;
import dev.warden.api.access.Scopes;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.FieldError;
import dev.warden.api.errors.ForbiddenException;
import dev.warden.api.errors.NotFoundException;
import dev.warden.api.errors.UnauthenticatedException;
import dev.warden.api.http.DeclaredRules;
import dev.warden.api.http.DeclaredService;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.Params;
import dev.warden.api.http.RequestReader;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * User API tokens, mounted at {@code /auth/tokens}:
 *
 * <ul>
 *   <li>{@code POST /} {@code {"name", "scopes"?, "expiresAt"?, "userId"?}}: a signed-in user (session)
 *       creates a token for themselves; the admin creates one for any {@code userId} (required then). 201
 *       with the token, shown once. An API token cannot mint further tokens.</li>
 *   <li>{@code GET /}: the caller's unrevoked tokens (the admin: everyone's, or {@code ?userId=}).</li>
 *   <li>{@code DELETE /{id}}: revokes one of the caller's tokens (the admin: any); 404 otherwise.</li>
 *   <li>{@code GET} and {@code DELETE /current} accept only a bearer API token and describe or revoke that
 *       very token.</li>
 * </ul>
 */
public final class ApiTokenRoutes implements DeclaredService {
    private static final Set<String> CREATE_FIELDS = Set.of("name", "userId", "scopes", "expiresAt");
    private static final int MAX_SCOPES = 32;

    private final ApiTokenRepository tokens;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public ApiTokenRoutes(ApiTokenRepository tokens, InstantSource clock, long maxBodyBytes) {
        this.tokens = tokens;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(DeclaredRules rules) {
        // Managing tokens needs every scope (or a session, or the administrator: AccessPolicy.apiTokenManager);
        // a token may always read and revoke itself.
        rules.post("/", Access.scope(Scopes.ALL), this::create)
                .get("/", Access.scope(Scopes.ALL), this::list)
                .get("/current", Access.anyCaller(), this::current)
                .delete("/current", Access.anyCaller(), this::revokeCurrent)
                .delete("/{id}", Access.scope(Scopes.ALL), this::revoke);
    }

    private void create(ServerRequest req, ServerResponse res) {
        Principal caller = AuthFilter.principal(req);
        Optional<UserId> self = AccessPolicy.apiTokenManager(caller);
        JsonInput in = JsonInput.of(RequestReader.readObject(req, maxBodyBytes), CREATE_FIELDS);
        Optional<String> name = in.requiredString("name", 200);
        Optional<UserId> userId = self.isEmpty()
                ? in.requiredValue("userId", Ids.MAX_LENGTH, UserId::of)
                : in.optionalValue("userId", Ids.MAX_LENGTH, UserId::of);
        List<String> scopes = scopes(in);
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Optional<Instant> expiresAt = in.optionalInstant("expiresAt").map(e -> e.truncatedTo(ChronoUnit.MILLIS));
        expiresAt.filter(e -> !e.isAfter(now)).ifPresent(e -> in.error("expiresAt", "must be in the future"));
        in.validate();
        if (self.isPresent() && userId.filter(u -> !u.equals(self.get())).isPresent()) {
            throw new ForbiddenException(
                    ErrorCode.FORBIDDEN,
                    "a user creates API tokens only for themselves",
                    List.of(new FieldError("userId", "must be your own user id")));
        }
        UserId owner = self.or(() -> userId).orElseThrow();
        String token = Tokens.mint(TokenKind.API);
        ApiToken record =
                new ApiToken(Ids.mint("tok"), name.orElseThrow(), owner, scopes, now, expiresAt, Optional.empty());
        tokens.insert(record, Tokens.hash(token));
        Responses.json(res, Status.CREATED_201, render(record).put("token", token));
    }

    private void list(ServerRequest req, ServerResponse res) {
        Optional<UserId> self = AccessPolicy.apiTokenManager(AuthFilter.principal(req));
        Optional<UserId> filter = self.isPresent() ? self : Params.query(req, "userId", UserId::of);
        List<ApiToken> found = filter.map(tokens::listUnrevoked).orElseGet(tokens::listUnrevoked);
        ArrayNode out = Json.mapper().createArrayNode();
        found.forEach(t -> out.add(render(t)));
        Responses.json(res, Status.OK_200, out);
    }

    private void revoke(ServerRequest req, ServerResponse res) {
        Optional<UserId> self = AccessPolicy.apiTokenManager(AuthFilter.principal(req));
        String id = Params.path(req, "id", s -> s);
        ApiToken token = tokens.find(id)
                .filter(t -> self.isEmpty() || t.userId().equals(self.get()))
                .orElseThrow(() -> new NotFoundException(ErrorCode.TOKEN_NOT_FOUND, "no such API token"));
        tokens.revoke(token.id(), clock.instant());
        Responses.noContent(res);
    }

    private static List<String> scopes(JsonInput in) {
        Optional<JsonNode> raw = in.raw("scopes");
        if (raw.isEmpty()) {
            return ApiToken.ALL_SCOPES;
        }
        if (!raw.get().isArray() || raw.get().isEmpty() || raw.get().size() > MAX_SCOPES) {
            in.error("scopes", "must be an array of 1 to " + MAX_SCOPES + " scope names");
            return List.of();
        }
        Set<String> scopes = new LinkedHashSet<>();
        for (int i = 0; i < raw.get().size(); i++) {
            JsonNode scope = raw.get().get(i);
            if (!scope.isTextual() || !Scopes.isValid(scope.textValue())) {
                in.error(
                        "scopes[" + i + "]",
                        "must be \"*\" or <area>:read|write|* with area one of " + String.join(", ", Scopes.AREAS));
            } else {
                scopes.add(scope.textValue());
            }
        }
        return List.copyOf(scopes);
    }

    private void current(ServerRequest req, ServerResponse res) {
        Responses.json(res, Status.OK_200, render(currentToken(req)));
    }

    private void revokeCurrent(ServerRequest req, ServerResponse res) {
        ApiToken token = currentToken(req);
        tokens.revoke(token.id(), clock.instant());
        Responses.noContent(res);
    }

    private ApiToken currentToken(ServerRequest req) {
        AccessPolicy.requireApiToken(AuthFilter.principal(req));
        String bearer = AuthFilter.bearerToken(req).orElseThrow();
        return tokens.findActiveByHash(Tokens.hash(bearer))
                .orElseThrow(
                        () -> new UnauthenticatedException(ErrorCode.UNAUTHORIZED, "the API token is no longer valid"));
    }

    private static ObjectNode render(ApiToken token) {
        Instant created = token.createdAt();
        ObjectNode node = Json.mapper()
                .createObjectNode()
                .put("id", token.id())
                .put("name", token.name())
                .put("userId", token.userId().value());
        token.scopes().forEach(node.putArray("scopes")::add);
        node.put("expiresAt", token.expiresAt().map(Json::timestamp).orElse(null));
        return node.put("createdAt", Json.timestamp(created));
    }
}
