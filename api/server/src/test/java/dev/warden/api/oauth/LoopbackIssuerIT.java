package dev.warden.api.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jwt.SignedJWT;
import dev.warden.pipeline.contract.Json;
import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Without a configured issuer, Warden in development answers to each loopback spelling of its address
 * (D182): an MCP client that connects through {@code http://127.0.0.1:<port>/mcp} is told that resource, that
 * authorization server and those endpoints, and a token it gets there works through {@code localhost} too (tokens
 * carry the canonical issuer). Any other {@code Host} gets the canonical URL: the server never reflects a host.
 */
class LoopbackIssuerIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform();

    static int port;
    static String localhost;
    static String ip;
    static Http viaLocalhost;
    static Http viaIp;

    @BeforeAll
    static void setUp() {
        port = warden.http().baseUri().getPort();
        localhost = "http://localhost:" + port;
        ip = "http://127.0.0.1:" + port;
        viaLocalhost = new Http(URI.create(localhost));
        viaIp = new Http(URI.create(ip));
    }

    @Test
    void eachSpellingIsToldItsOwnIssuerResourceAndEndpoints() throws Exception {
        JsonNode asViaIp =
                viaIp.get("/.well-known/oauth-authorization-server", null).json();
        assertThat(asViaIp.get("issuer").asText()).isEqualTo(ip);
        assertThat(asViaIp.get("token_endpoint").asText()).isEqualTo(ip + "/mcp/token");
        assertThat(viaLocalhost
                        .get("/.well-known/oauth-authorization-server", null)
                        .json()
                        .get("issuer")
                        .asText())
                .isEqualTo(localhost);

        JsonNode mcp =
                viaIp.get("/.well-known/oauth-protected-resource/mcp", null).json();
        assertThat(mcp.get("resource").asText()).isEqualTo(ip + "/mcp");
        assertThat(mcp.get("authorization_servers").get(0).asText()).isEqualTo(ip);
        assertThat(mcp.get("resource_name").asText()).isEqualTo("Warden MCP server");

        Http.Response challenge = viaIp.post("/mcp", null, "{}");
        assertThat(challenge.status()).isEqualTo(401);
        assertThat(challenge.header("WWW-Authenticate").orElseThrow())
                .contains("resource_metadata=\"" + ip + "/.well-known/oauth-protected-resource/mcp\"");

        // [::1] is a spelling too; a host that is not one gets the canonical issuer, never itself
        assertThat(issuerForHost("[::1]:" + port)).isEqualTo("http://[::1]:" + port);
        assertThat(issuerForHost("evil.example:" + port)).isEqualTo(localhost);
        assertThat(issuerForHost("127.0.0.1:1")).isEqualTo(localhost);
    }

    @Test
    void aTokenIssuedThroughOneSpellingWorksThroughTheOtherAndCarriesTheCanonicalIssuer() throws Exception {
        String admin = warden.adminToken();
        JsonNode agent = viaLocalhost.post("/agents", admin, """
                        {"ownerId":"ops","name":"svc","type":"service",
                         "permissions":[{"resource":"*","actions":["*"]}]}""").json();
        String id = agent.get("id").asText();
        assertThat(viaLocalhost.post("/agents/" + id + "/oauth-client", admin).status())
                .isEqualTo(201);
        String secret = agent.get("token").asText();

        Http.Response issued = clientCredentials(id, secret, Map.of("scope", "agents:read", "resource", ip));
        assertThat(issued.status()).as(issued.body()).isEqualTo(200);
        String token = issued.json().get("access_token").asText();
        JsonNode claims =
                Json.mapper().readTree(SignedJWT.parse(token).getPayload().toString());
        assertThat(claims.get("iss").asText()).isEqualTo(localhost);
        assertThat(
                        claims.get("aud").isArray()
                                ? claims.get("aud").get(0).asText()
                                : claims.get("aud").asText())
                .isEqualTo(localhost);

        assertThat(viaIp.get("/agents/" + id, token).status()).isEqualTo(200);
        assertThat(viaLocalhost.get("/agents/" + id, token).status()).isEqualTo(200);
        // The MCP endpoint is another resource: the REST API's token is refused there, in either spelling
        assertThat(viaIp.post("/mcp", token, "{}").status()).isEqualTo(401);

        // A resource in a spelling that is not the issuer's is not a resource of this server
        Http.Response elsewhere = clientCredentials(id, secret, Map.of("resource", "http://127.0.0.1:1/mcp"));
        assertThat(elsewhere.status()).isEqualTo(400);
        assertThat(elsewhere.json().get("error").asText()).isEqualTo("invalid_target");
    }

    /** The client-credentials grant through 127.0.0.1. */
    static Http.Response clientCredentials(String id, String secret, Map<String, String> extra) {
        return new OAuthDriver(viaIp).clientCredentials(id, secret, extra);
    }

    /** The metadata's issuer when the request says {@code Host: host} (the JDK's client will not send another). */
    static String issuerForHost(String host) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: " + host + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            // The head up to the blank line, then Content-Length bytes (the connection stays open)
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                head.append((char) in.read());
            }
            assertThat(head.toString()).startsWith("HTTP/1.1 200");
            int length = Integer.parseInt(head.toString()
                    .lines()
                    .filter(l -> l.regionMatches(true, 0, "Content-Length:", 0, 15))
                    .findFirst()
                    .orElseThrow()
                    .substring(15)
                    .strip());
            return Json.mapper().readTree(in.readNBytes(length)).get("issuer").asText();
        }
    }
}
