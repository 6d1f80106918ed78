package dev.warden.api.oauth.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.warden.api.errors.ErrorCode;
import dev.warden.api.errors.OAuthException;
import dev.warden.pipeline.contract.CleanText;
import dev.warden.pipeline.contract.Json;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Client metadata (RFC 7591 section 2) as Warden accepts it, read from a registration request or a Client ID
 * Metadata Document. Unknown members are ignored (RFC 7591 section 2); known ones are checked, and the first
 * problem is an {@code invalid_redirect_uri} or {@code invalid_client_metadata} naming the member.
 *
 * @param echo the accepted metadata as it is answered and stored (only the members Warden understood)
 */
public record ClientMetadata(
        List<String> redirectUris,
        String clientName,
        String authMethod,
        List<String> grantTypes,
        Optional<String> scope,
        ObjectNode echo) {

    private static final Set<String> AUTH_METHODS = Set.of(OAuthClient.NONE, OAuthClient.BASIC, OAuthClient.POST);
    private static final List<String> URL_MEMBERS = List.of("client_uri", "logo_uri", "tos_uri", "policy_uri");
    private static final List<String> TEXT_MEMBERS = List.of("software_id", "software_version");
    private static final int MAX_TEXT = 200;

    /**
     * Reads {@code body}.
     *
     * @param defaultAuthMethod the method when none is given ({@code client_secret_basic} per RFC 7591 for
     *                          registration; {@code none} for a metadata document)
     * @param knownScope        whether a scope value may be asked for
     * @param grantTypes        the grant types a client may register (the server's registrable token grants)
     */
    public static ClientMetadata read(
            ObjectNode body, String defaultAuthMethod, Predicate<String> knownScope, Set<String> grantTypes) {
        ObjectNode echo = Json.mapper().createObjectNode();
        List<String> redirectUris = redirectUris(body.get("redirect_uris"));
        echo.set("redirect_uris", array(redirectUris));

        String authMethod = optionalText(body, "token_endpoint_auth_method").orElse(defaultAuthMethod);
        if (!AUTH_METHODS.contains(authMethod)) {
            throw metadata("token_endpoint_auth_method must be one of none, client_secret_basic, client_secret_post");
        }
        List<String> requested = texts(body, "grant_types").orElse(List.of(GrantTypes.AUTHORIZATION_CODE));
        for (String g : requested) {
            if (!grantTypes.contains(g)) {
                throw metadata("grant_types: " + g + " is not supported (" + String.join(", ", grantTypes) + ")");
            }
        }
        // RFC 7591 section 2: "code" by default; a client without the code grant (device, token exchange) has none.
        boolean code = requested.contains(GrantTypes.AUTHORIZATION_CODE);
        List<String> responseTypes = texts(body, "response_types").orElse(code ? List.of("code") : List.of());
        if (!responseTypes.equals(List.of("code")) && !(responseTypes.isEmpty() && !code)) {
            throw metadata("response_types must be [\"code\"]");
        }
        if (code && redirectUris.isEmpty()) {
            throw new OAuthException(ErrorCode.OAUTH_INVALID_REDIRECT_URI, "redirect_uris is required");
        }
        Optional<String> scope = optionalText(body, "scope");
        if (scope.isPresent()) {
            for (String s : scope.get().split(" ")) {
                if (!knownScope.test(s)) {
                    throw metadata("scope: " + CleanText.scrub(s) + " is not a scope of this server");
                }
            }
        }
        String clientName = optionalText(body, "client_name").orElse("");
        if (clientName.length() > MAX_TEXT) {
            throw metadata("client_name must be at most " + MAX_TEXT + " characters");
        }
        if (!clientName.isEmpty()) {
            echo.put("client_name", clientName);
        }
        echo.put("token_endpoint_auth_method", authMethod);
        echo.set("grant_types", array(requested));
        echo.set("response_types", array(responseTypes));
        scope.ifPresent(s -> echo.put("scope", s));
        for (String member : URL_MEMBERS) {
            optionalText(body, member).ifPresent(v -> {
                if (!(v.startsWith("https://") || v.startsWith("http://")) || v.length() > RedirectUris.MAX_LENGTH) {
                    throw metadata(member + " must be an http(s) URL");
                }
                echo.put(member, v);
            });
        }
        for (String member : TEXT_MEMBERS) {
            optionalText(body, member).ifPresent(v -> {
                if (v.length() > MAX_TEXT) {
                    throw metadata(member + " must be at most " + MAX_TEXT + " characters");
                }
                echo.put(member, v);
            });
        }
        texts(body, "contacts").ifPresent(c -> echo.set("contacts", array(c)));
        return new ClientMetadata(redirectUris, clientName, authMethod, requested, scope, echo);
    }

    private static List<String> redirectUris(JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!(node instanceof ArrayNode array)) {
            throw new OAuthException(ErrorCode.OAUTH_INVALID_REDIRECT_URI, "redirect_uris must be an array of URIs");
        }
        if (array.size() > RedirectUris.MAX_COUNT) {
            throw new OAuthException(
                    ErrorCode.OAUTH_INVALID_REDIRECT_URI, "redirect_uris: at most " + RedirectUris.MAX_COUNT);
        }
        LinkedHashSet<String> uris = new LinkedHashSet<>();
        for (JsonNode item : array) {
            if (!item.isTextual()) {
                throw new OAuthException(ErrorCode.OAUTH_INVALID_REDIRECT_URI, "redirect_uris must hold strings");
            }
            String uri = item.textValue();
            Optional<String> problem = CleanText.problem(uri).or(() -> RedirectUris.problem(uri));
            if (problem.isPresent()) {
                throw new OAuthException(
                        ErrorCode.OAUTH_INVALID_REDIRECT_URI,
                        "redirect_uris: " + CleanText.scrub(uri.length() > 200 ? uri.substring(0, 200) : uri) + " "
                                + problem.get());
            }
            uris.add(uri);
        }
        return List.copyOf(uris);
    }

    private static Optional<String> optionalText(ObjectNode body, String member) {
        JsonNode node = body.get(member);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isTextual()) {
            throw metadata(member + " must be a string");
        }
        String value = node.textValue();
        CleanText.problem(value).ifPresent(p -> {
            throw metadata(member + " " + p);
        });
        return value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    private static Optional<List<String>> texts(ObjectNode body, String member) {
        JsonNode node = body.get(member);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!(node instanceof ArrayNode array) || array.size() > 20) {
            throw metadata(member + " must be an array of at most 20 strings");
        }
        List<String> values = new ArrayList<>();
        for (JsonNode item : array) {
            if (!item.isTextual()
                    || item.textValue().length() > MAX_TEXT
                    || CleanText.problem(item.textValue()).isPresent()) {
                throw metadata(member + " must hold strings of at most " + MAX_TEXT + " characters");
            }
            if (!values.contains(item.textValue())) {
                values.add(item.textValue());
            }
        }
        return Optional.of(values);
    }

    private static ArrayNode array(List<String> values) {
        ArrayNode array = Json.mapper().createArrayNode();
        values.forEach(array::add);
        return array;
    }

    private static OAuthException metadata(String description) {
        return new OAuthException(ErrorCode.OAUTH_INVALID_CLIENT_METADATA, description);
    }
}
