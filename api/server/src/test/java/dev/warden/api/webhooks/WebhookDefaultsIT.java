package dev.warden.api.webhooks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.testing.Http;
import dev.warden.testing.TestPlatform;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Webhooks under the default configuration (API role only, no deliveries): the SSRF guard refuses
 * non-public targets, and without an encryption key the secret is stored as issued.
 */
class WebhookDefaultsIT {
    @RegisterExtension
    static final TestPlatform warden = new TestPlatform(b -> b.roles("api"));

    @Test
    void loopbackPrivateLinkLocalAndUniqueLocalTargetsAreRefusedNamingUrl() {
        Http http = warden.http();
        for (String url : List.of(
                "http://127.0.0.1:1/x",
                "http://10.0.0.1/",
                "http://192.168.0.10:8080/hook",
                "http://169.254.169.254/latest/meta-data",
                "http://[::1]/",
                "http://[fd00::1]/",
                "http://[::ffff:127.0.0.1]/",
                "http://localhost:8080/",
                "http://224.0.0.1/")) {
            Http.Response res = http.post("/webhooks", warden.adminToken(), "{\"url\":\"" + url + "\"}");

            assertThat(res.status()).as(url).isEqualTo(400);
            assertThat(fields(res)).as(url).containsExactly("url");
        }
        assertThat(http.get("/webhooks", warden.adminToken()).json()).isEmpty();
    }

    @Test
    void aPublicTargetIsAcceptedAndItsSecretIsStoredAsIssuedWithoutAKey() throws Exception {
        Http.Response res =
                warden.http().post("/webhooks", warden.adminToken(), "{\"url\":\"https://93.184.215.14/hooks\"}");

        assertThat(res.status()).as(res.body()).isEqualTo(201);
        assertThat(res.json().get("ownerId").isNull()).isTrue();
        String schema = warden.config().postgres().schema().orElseThrow();
        try (var conn = java.sql.DriverManager.getConnection(warden.infra().jdbcUrl());
                var ps = conn.prepareStatement("SELECT secret FROM " + schema + ".webhook_endpoints WHERE id = ?")) {
            ps.setString(1, res.json().get("id").asText());
            try (var rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(res.json().get("secret").asText());
            }
        }
    }

    private static List<String> fields(Http.Response res) {
        List<String> fields = new ArrayList<>();
        res.json().get("errors").forEach(e -> fields.add(e.get("field").asText()));
        return fields;
    }
}
