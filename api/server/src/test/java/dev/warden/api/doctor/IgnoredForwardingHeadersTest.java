package dev.warden.api.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.api.ratelimit.Cidr;
import dev.warden.api.ratelimit.ClientIp;
import io.helidon.http.HeaderNames;
import io.helidon.webclient.http1.Http1ClientRequest;
import io.helidon.webclient.http1.Http1ClientResponse;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.testing.junit5.DirectClient;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The count behind {@code forwarded-headers-untrusted}: {@link ClientIp} counts look-ups that ignore forwarding
 * headers because no proxy is trusted, and nothing else. Driven through a routing without a socket.
 */
class IgnoredForwardingHeadersTest {
    static void lookUp(ClientIp clientIp, UnaryOperator<Http1ClientRequest> headers) {
        HttpRouting.Builder routing = HttpRouting.builder().get("/", (req, res) -> res.send(clientIp.text(req)));
        DirectClient client = new DirectClient(routing);
        try (Http1ClientResponse res = headers.apply(client.get("/")).request()) {
            assertThat(res.status().code()).isEqualTo(200);
        } finally {
            client.close();
        }
    }

    @Test
    void forwardingHeadersWithNoTrustedProxyAreCounted() {
        ClientIp clientIp = ClientIp.untrusting();

        lookUp(clientIp, r -> r.header(HeaderNames.X_FORWARDED_FOR, "203.0.113.9"));
        lookUp(clientIp, r -> r.header(HeaderNames.FORWARDED, "for=203.0.113.9"));

        assertThat(clientIp.ignoredForwardingHeaders()).isEqualTo(2);
        assertThat(Checks.forwardedHeaders(false, clientIp.ignoredForwardingHeaders()))
                .isPresent();
    }

    @Test
    void requestsWithoutForwardingHeadersAreNotCounted() {
        ClientIp clientIp = ClientIp.untrusting();

        lookUp(clientIp, r -> r);

        assertThat(clientIp.ignoredForwardingHeaders()).isZero();
    }

    @Test
    void forwardingHeadersAreNotCountedWhenAProxyIsTrusted() {
        ClientIp clientIp = new ClientIp(List.of(Cidr.parse("10.0.0.0/8")));

        lookUp(clientIp, r -> r.header(HeaderNames.X_FORWARDED_FOR, "203.0.113.9"));

        assertThat(clientIp.ignoredForwardingHeaders()).isZero();
    }
}
