package dev.warden.runtime.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link GuardedHttp} against a real HTTP server on loopback: the address the guard checked is the one connected
 * to (a resolver that answers a public address to the check and loopback to the connection reaches nothing), and
 * one deadline ends an answer that is dribbled out forever.
 */
class GuardedHttpTest {
    private HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/ok", exchange -> {
            requests.incrementAndGet();
            try (exchange) {
                byte[] body = "fine".getBytes();
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.createContext("/dribble", exchange -> {
            requests.incrementAndGet();
            try (exchange) {
                exchange.sendResponseHeaders(200, 0);
                for (int i = 0; i < 120; i++) {
                    exchange.getResponseBody().write('x');
                    exchange.getResponseBody().flush();
                    Thread.sleep(250);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                // the client hung up at its deadline
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private URI url(String host, String path) {
        return URI.create("http://" + host + ":" + server.getAddress().getPort() + path);
    }

    @Test
    void theConnectionGoesOnlyToAnAddressThatPassedTheGuard() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        // DNS rebinding: the first answer is public, every later one is loopback.
        TargetGuard guard = new TargetGuard(
                host -> lookups.incrementAndGet() == 1
                        ? new InetAddress[] {InetAddress.getByName("93.184.216.34")}
                        : new InetAddress[] {InetAddress.getLoopbackAddress()},
                false);
        URI target = url("rebind.example", "/ok");
        assertThat(guard.check(target).allowed())
                .as("the check before the delivery sees the public answer")
                .isTrue();
        try (GuardedHttp http = new GuardedHttp(guard, Duration.ofSeconds(5), Optional.empty())) {
            assertThatThrownBy(() -> http.send("GET", target, Map.of(), Optional.empty(), 1024))
                    .isInstanceOf(GuardedHttp.RefusedTarget.class)
                    .hasMessageContaining("127.0.0.1");
        }
        assertThat(requests).as("nothing reached the internal server").hasValue(0);
    }

    @Test
    void allowedTargetsAnswerAndADribbledBodyEndsAtTheDeadline() throws Exception {
        TargetGuard guard = new TargetGuard(host -> new InetAddress[] {InetAddress.getLoopbackAddress()}, true);
        try (GuardedHttp http = new GuardedHttp(guard, Duration.ofSeconds(2), Optional.empty())) {
            GuardedHttp.Answer ok = http.send("GET", url("target.example", "/ok"), Map.of(), Optional.empty(), 1024);
            assertThat(ok.status()).isEqualTo(200);
            assertThat(new String(ok.body())).isEqualTo("fine");
            assertThat(ok.truncated()).isFalse();
            GuardedHttp.Answer cut = http.send("GET", url("target.example", "/ok"), Map.of(), Optional.empty(), 2);
            assertThat(cut.truncated()).isTrue();

            Instant start = Instant.now();
            assertThatThrownBy(() -> http.send(
                            "GET", url("target.example", "/dribble"), Map.of(), Optional.empty(), 1024 * 1024))
                    .isInstanceOf(HttpTimeoutException.class);
            // 120 bytes a quarter second apart would take 30 s; the deadline is 2 s.
            assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(15));
        }
    }
}
