package dev.warden.api.auth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.http.ApiException;
import dev.warden.api.http.ErrorCode;
import dev.warden.api.http.JsonInput;
import dev.warden.api.http.JsonRequests;
import dev.warden.api.http.Responses;
import dev.warden.authorizer.domain.Ids;
import dev.warden.authorizer.domain.UserId;
import dev.warden.pipeline.contract.Json;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;

/**
 * User API tokens, mounted at {@code /auth/tokens}. Until sign-up exists, only the admin creates tokens
 * ({@code POST} with {@code {"name","userId"}}); {@code GET} and {@code DELETE /current} accept only a
 * bearer API token and describe or revoke that very token.
 */
public final class ApiTokenRoutes implements HttpService {
    private static final Set<String> CREATE_FIELDS = Set.of("name", "userId");

    private final ApiTokenRepository tokens;
    private final InstantSource clock;
    private final long maxBodyBytes;

    public ApiTokenRoutes(ApiTokenRepository tokens, InstantSource clock, long maxBodyBytes) {
        this.tokens = tokens;
        this.clock = clock;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/", this::create)
                .get("/current", this::current)
                .delete("/current", this::revokeCurrent);
    }

    private void create(ServerRequest req, ServerResponse res) {
        if (!(AuthFilter.principal(req) instanceof Principal.Admin)) {
            throw ApiException.forbidden("only the administrator can create API tokens for users");
        }
        JsonInput in = JsonInput.of(JsonRequests.readObject(req, maxBodyBytes), CREATE_FIELDS);
        Optional<String> name = in.requiredString("name", 200);
        Optional<UserId> userId = in.requiredValue("userId", Ids.MAX_LENGTH, UserId::of);
        in.validate();
        String token = Tokens.mint(TokenKind.API);
        ApiToken record = new ApiToken(Ids.mint("tok"), name.orElseThrow(), userId.orElseThrow(),
                clock.instant().truncatedTo(ChronoUnit.MILLIS), Optional.empty());
        tokens.insert(record, Tokens.hash(token));
        Responses.json(res, Status.CREATED_201, render(record).put("token", token));
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
        if (!(AuthFilter.principal(req) instanceof Principal.User)) {
            throw new ApiException(ErrorCode.FORBIDDEN, "this endpoint accepts only a bearer API token");
        }
        String bearer = AuthFilter.bearerToken(req).orElseThrow();
        return tokens.findActiveByHash(Tokens.hash(bearer))
                .orElseThrow(() -> new ApiException(ErrorCode.UNAUTHORIZED, "the API token is no longer valid"));
    }

    private static ObjectNode render(ApiToken token) {
        Instant created = token.createdAt();
        return Json.mapper().createObjectNode()
                .put("id", token.id())
                .put("name", token.name())
                .put("userId", token.userId().value())
                .put("createdAt", Json.timestamp(created));
    }
}
