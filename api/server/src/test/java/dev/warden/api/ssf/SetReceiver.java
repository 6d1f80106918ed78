package dev.warden.api.ssf;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * An RFC 8935 push receiver double: it checks every Security Event Token it gets as a receiver must (the media
 * type, its {@code Authorization}, the signature against the transmitter's JWKS, {@code typ}, {@code iss},
 * {@code aud}, one event) and records the verified claims, the {@code jti}s it saw more than once, and what it
 * refused. It can fail as a receiver does: answer 503, be down (connection refused), refuse tokens with 400.
 */
final class SetReceiver implements AutoCloseable {
    /** How it answers. */
    enum Mode {
        ACCEPT,
        FAIL_503,
        REFUSE_400
    }

    final List<JWTClaimsSet> accepted = new CopyOnWriteArrayList<>();
    final List<String> problems = new CopyOnWriteArrayList<>();
    final Set<String> duplicates = ConcurrentHashMap.newKeySet();
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final String issuer;
    private final String audience;
    private final String authorization;
    private final java.util.function.Supplier<JWKSet> jwks;
    private final int port;
    private volatile HttpServer server;
    private volatile Mode mode = Mode.ACCEPT;

    SetReceiver(String issuer, String audience, String authorization, java.util.function.Supplier<JWKSet> jwks) {
        this.issuer = issuer;
        this.audience = audience;
        this.authorization = authorization;
        this.jwks = jwks;
        this.server = start(0);
        this.port = server.getAddress().getPort();
    }

    String url() {
        return "http://127.0.0.1:" + port + "/events";
    }

    void mode(Mode mode) {
        this.mode = mode;
    }

    void down() {
        server.stop(0);
    }

    void up() {
        server = start(port);
    }

    /** The verified tokens' single event types, in arrival order. */
    List<String> types() {
        return accepted.stream().map(SetReceiver::type).toList();
    }

    static String type(JWTClaimsSet claims) {
        try {
            return claims.getJSONObjectClaim("events").keySet().iterator().next();
        } catch (java.text.ParseException e) {
            throw new AssertionError(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> event(JWTClaimsSet claims) {
        try {
            return (Map<String, Object>)
                    claims.getJSONObjectClaim("events").values().iterator().next();
        } catch (java.text.ParseException e) {
            throw new AssertionError(e);
        }
    }

    private HttpServer start(int on) {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", on), 0);
            s.setExecutor(Executors.newCachedThreadPool());
            s.createContext("/events", exchange -> {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.US_ASCII);
                Mode now = mode;
                if (now == Mode.FAIL_503) {
                    answer(exchange, 503, "");
                    return;
                }
                if (now == Mode.REFUSE_400) {
                    answer(exchange, 400, "{\"err\":\"invalid_request\",\"description\":\"refused by the test\"}");
                    return;
                }
                String problem = check(
                        exchange.getRequestHeaders().getFirst("Content-Type"),
                        exchange.getRequestHeaders().getFirst("Authorization"),
                        body);
                if (problem != null) {
                    problems.add(problem);
                    answer(exchange, 400, "{\"err\":\"authentication_failed\",\"description\":\"" + problem + "\"}");
                    return;
                }
                answer(exchange, 202, "");
            });
            s.start();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What is wrong with a pushed token, or null when it verifies (then it is recorded). */
    private String check(String contentType, String auth, String body) {
        if (!"application/secevent+jwt".equals(contentType)) {
            return "content type " + contentType;
        }
        if (!authorization.equals(auth)) {
            return "authorization " + auth;
        }
        try {
            SignedJWT jwt = SignedJWT.parse(body);
            if (!new JOSEObjectType("secevent+jwt").equals(jwt.getHeader().getType())) {
                return "typ " + jwt.getHeader().getType();
            }
            ECKey key = (ECKey) jwks.get().getKeyByKeyId(jwt.getHeader().getKeyID());
            if (key == null || !jwt.verify(new ECDSAVerifier(key))) {
                return "signature";
            }
            JWTClaimsSet claims = jwt.getJWTClaimsSet();
            if (!issuer.equals(claims.getIssuer()) || !List.of(audience).equals(claims.getAudience())) {
                return "iss/aud " + claims.getIssuer() + " " + claims.getAudience();
            }
            if (claims.getJSONObjectClaim("events").size() != 1 || claims.getIssueTime() == null) {
                return "events " + claims.getJSONObjectClaim("events");
            }
            if (!seen.add(claims.getJWTID())) {
                duplicates.add(claims.getJWTID());
                return null;
            }
            accepted.add(claims);
            return null;
        } catch (Exception e) {
            return "unreadable: " + e.getMessage();
        }
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (!body.isEmpty()) {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
        }
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
