package dev.warden.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every error shape Warden answers (docs/errors.md) becomes one WardenException with its code and detail. */
class TransportTest {
    static HttpHeaders headers(Map<String, List<String>> map) {
        return HttpHeaders.of(map, (a, b) -> true);
    }

    static WardenException error(int status, String body, Map<String, List<String>> headers) {
        return Transport.error(status, headers(headers), body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aProblemNamesItsCodeDetailFieldsAndRequestId() {
        WardenException e = error(
                400,
                "{\"code\":\"validation_invalid\",\"detail\":\"2 fields\",\"requestId\":\"req-1\","
                        + "\"errors\":[{\"field\":\"name\",\"message\":\"must not be blank\"}]}",
                Map.of());
        assertThat(e.code()).isEqualTo("validation_invalid");
        assertThat(e.detail()).isEqualTo("2 fields");
        assertThat(e.requestId()).isEqualTo("req-1");
        assertThat(e.errors()).containsExactly(new WardenException.FieldError("name", "must not be blank"));
        assertThat(e.getMessage()).contains("name: must not be blank");
    }

    @Test
    void theSpecs429BodyAnOAuthErrorAndABareStatusAreReadToo() {
        WardenException limited = error(
                429,
                "{\"error\":{\"code\":\"RATE_LIMIT_EXCEEDED\",\"message\":\"Try again in 12 seconds\"}}",
                Map.of("Retry-After", List.of("12"), "X-Request-Id", List.of("req-2")));
        assertThat(limited.code()).isEqualTo("RATE_LIMIT_EXCEEDED");
        assertThat(limited.detail()).isEqualTo("Try again in 12 seconds");
        assertThat(limited.retryAfter()).contains(Duration.ofSeconds(12));
        assertThat(limited.requestId()).isEqualTo("req-2");

        WardenException oauth = error(400, "{\"error\":\"invalid_grant\",\"error_description\":\"spent\"}", Map.of());
        assertThat(oauth.code()).isEqualTo("invalid_grant");
        assertThat(oauth.detail()).isEqualTo("spent");

        WardenException bare = error(502, "<html>bad gateway</html>", Map.of());
        assertThat(bare.code()).isEqualTo("http_502");
        assertThat(bare.detail()).isEmpty();
    }
}
