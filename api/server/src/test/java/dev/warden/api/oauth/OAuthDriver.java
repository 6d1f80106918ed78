package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Drives the authorization server over real HTTP as a client and a signed-in browser would. */
public final class OAuthDriver {
    public static final String REDIRECT = "http://127.0.0.1:9/callback";
    private static final Pattern HIDDEN =
            Pattern.compile("<input type=\"hidden\" name=\"([^\"]+)\" value=\"([^\"]*)\">");
    /** The consent page's CSRF cookie in its {@code Set-Cookie} header. */
    public static final Pattern CSRF_COOKIE = Pattern.compile("(warden_csrf=[^;]+)");

    private final Http http;

    public OAuthDriver(Http http) {
        this.http = http;
    }

    /** A PKCE verifier and its S256 challenge. */
    public record Pkce(String verifier, String challenge) {
        public static Pkce fresh() {
            byte[] bytes = new byte[32];
            new SecureRandom().nextBytes(bytes);
            String verifier = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            try {
                byte[] digest =
                        MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
                return new Pkce(
                        verifier, Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Registers a public client at /mcp/register; its client_id. */
    public String registerPublicClient() {
        Http.Response r = http.post(
                "/mcp/register",
                null,
                "{\"client_name\":\"IT client\",\"redirect_uris\":[\""
                        + REDIRECT + "\"],\"grant_types\":[\"authorization_code\",\"refresh_token\"],"
                        + "\"token_endpoint_auth_method\":\"none\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("client_id").asText();
    }

    /** A user signed up; its session token (also the session cookie's value). */
    public String signUp(String username) {
        Http.Response r = http.post(
                "/auth/sign-up", null, "{\"username\":\"" + username + "\",\"password\":\"a long enough password\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("token").asText();
    }

    /** The authorization URL path with {@code params}. */
    public static String authorizePath(Map<String, String> params) {
        StringBuilder q = new StringBuilder("/mcp/authorize?");
        params.forEach((k, v) -> q.append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8))
                .append('&'));
        return q.substring(0, q.length() - 1);
    }

    public static Map<String, String> request(String clientId, Pkce pkce, String state) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("response_type", "code");
        p.put("client_id", clientId);
        p.put("redirect_uri", REDIRECT);
        p.put("code_challenge", pkce.challenge());
        p.put("code_challenge_method", "S256");
        p.put("state", state);
        return p;
    }

    /** GET of {@code path} with the session cookie; no redirect followed. */
    public Http.Response getWithSession(String path, String session) {
        return http.send(http.builder(path, null)
                .header("Cookie", "warden_session=" + session)
                .GET());
    }

    /**
     * Authorizes as the signed-in {@code session} (through the consent page when asked) and returns the final
     * redirect to the client.
     */
    public URI authorize(String session, Map<String, String> params) {
        Http.Response first = getWithSession(authorizePath(params), session);
        assertThat(first.status()).as(first.body()).isEqualTo(302);
        String location = first.header("Location").orElseThrow();
        if (location.startsWith(REDIRECT)) {
            return URI.create(location);
        }
        assertThat(location).startsWith("/oauth/consent?");
        Http.Response page = getWithSession(location, session);
        assertThat(page.status()).as(page.body()).isEqualTo(200);
        Matcher cookie = CSRF_COOKIE.matcher(page.header("Set-Cookie").orElseThrow());
        assertThat(cookie.find()).isTrue();
        Map<String, String> form = hiddenFields(page.body());
        form.put("decision", "allow");
        Http.Response decided = postForm("/oauth/consent", form, "warden_session=" + session + "; " + cookie.group(1));
        assertThat(decided.status()).as(decided.body()).isEqualTo(303);
        return URI.create(decided.header("Location").orElseThrow());
    }

    /** The hidden form fields of a page, unescaped. */
    public static Map<String, String> hiddenFields(String html) {
        Map<String, String> fields = new LinkedHashMap<>();
        Matcher m = HIDDEN.matcher(html);
        while (m.find()) {
            fields.put(
                    m.group(1),
                    m.group(2)
                            .replace("&amp;", "&")
                            .replace("&quot;", "\"")
                            .replace("&#39;", "'")
                            .replace("&lt;", "<")
                            .replace("&gt;", ">"));
        }
        return fields;
    }

    /** The query parameters of a redirect. */
    public static Map<String, String> query(URI uri) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            out.put(
                    URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    /** {@code form} posted as {@code application/x-www-form-urlencoded}, with {@code cookie} when given. */
    public Http.Response postForm(String path, Map<String, String> form, String cookie) {
        HttpRequest.Builder b = http.builder(path, null).header("Content-Type", "application/x-www-form-urlencoded");
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        return http.send(b.POST(HttpRequest.BodyPublishers.ofString(encode(form))));
    }

    public Http.Response token(Map<String, String> form) {
        return postForm("/mcp/token", form, null);
    }

    /** A service agent bound to an OAuth client: its client id (the agent id) and secret (the agent's token). */
    public record BoundAgent(String id, String secret) {}

    /** A new service agent of user {@code quinn} that may read agents, bound to an OAuth client by {@code admin}. */
    public BoundAgent newBoundServiceAgent(String admin, String name) {
        Http.Response created = http.post(
                "/agents",
                admin,
                "{\"ownerId\":\"quinn\",\"name\":\"" + name + "\",\"type\":\"service\","
                        + "\"permissions\":[{\"resource\":\"agents\",\"actions\":[\"read\"]}]}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.json().get("id").asText();
        assertThat(http.post("/agents/" + id + "/oauth-client", admin).status()).isEqualTo(201);
        return new BoundAgent(id, created.json().get("token").asText());
    }

    /** The client-credentials grant at {@code /oauth/token}, the client authenticating with HTTP Basic. */
    public Http.Response clientCredentials(String id, String secret, Map<String, String> extra) {
        Map<String, String> form = new LinkedHashMap<>(Map.of("grant_type", "client_credentials"));
        form.putAll(extra);
        String basic =
                java.util.Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
        return http.send(http.builder("/oauth/token", null)
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(encode(form))));
    }

    /** {@code form} URL-encoded. */
    public static String encode(Map<String, String> form) {
        StringBuilder body = new StringBuilder();
        form.forEach((k, v) -> body.append(body.isEmpty() ? "" : "&")
                .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        return body.toString();
    }

    /** A code exchanged: the token response. */
    public Http.Response exchange(String clientId, String code, Pkce pkce) {
        return token(Map.of(
                "grant_type",
                "authorization_code",
                "code",
                code,
                "redirect_uri",
                REDIRECT,
                "client_id",
                clientId,
                "code_verifier",
                pkce.verifier()));
    }
}
