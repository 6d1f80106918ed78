package dev.warden.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code warden probe}: exit 0 on 200 and 1 on anything else, against a JDK HTTP server on a loopback port
 * (loopback only: the test's traffic stays on this machine).
 */
class ProbeTest {
    private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();
    private HttpServer server;
    private String base;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/up", exchange -> respond(exchange, 200));
        server.createContext("/down", exchange -> respond(exchange, 503));
        server.createContext("/slow", exchange -> {
            try {
                Thread.sleep((Probe.TIMEOUT_SECONDS + 2) * 1000L);
                respond(exchange, 200);
            } catch (InterruptedException e) {
                exchange.close();
            }
        });
        server.setExecutor(handlers);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        handlers.shutdownNow();
    }

    private static void respond(HttpExchange exchange, int status) throws IOException {
        byte[] body = "{\"status\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    @Test
    void answer200ExitsZero() {
        Output out = new Output();
        assertThat(Probe.run(base + "/up", out.stream)).isZero();
        assertThat(out.text()).isEqualTo("probe: " + base + "/up 200\n");
    }

    @Test
    void anyOtherStatusExitsOne() {
        Output out = new Output();
        assertThat(Probe.run(base + "/down", out.stream)).isEqualTo(1);
        assertThat(out.text()).isEqualTo("probe: " + base + "/down 503\n");
        assertThat(Probe.run(base + "/missing", new Output().stream)).isEqualTo(1);
    }

    @Test
    void refusedConnectionExitsOne() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        Output out = new Output();
        assertThat(Probe.run("http://127.0.0.1:" + closedPort + "/observe/health", out.stream))
                .isEqualTo(1);
        assertThat(out.text())
                .startsWith("probe: http://127.0.0.1:" + closedPort + "/observe/health failed: ")
                .endsWith("\n")
                .hasLineCount(1);
    }

    @Test
    void answerSlowerThanTheTimeoutExitsOne() {
        Output out = new Output();
        long started = System.nanoTime();
        assertThat(Probe.run(base + "/slow", out.stream)).isEqualTo(1);
        assertThat((System.nanoTime() - started) / 1_000_000).isLessThan((Probe.TIMEOUT_SECONDS + 1) * 1000L);
        assertThat(out.text()).contains("HttpTimeoutException").hasLineCount(1);
    }

    @Test
    void malformedUrlExitsOne() {
        Output out = new Output();
        assertThat(Probe.run("not a url", out.stream)).isEqualTo(1);
        assertThat(out.text()).startsWith("probe: not a url failed: IllegalArgumentException");
    }

    @Test
    void mainRunsProbeWithTheGivenUrl() {
        assertThat(Main.run(new String[] {"probe", base + "/up"}, new Output().stream, Optional.empty()))
                .isZero();
        assertThat(Main.run(new String[] {"probe", base + "/down"}, new Output().stream, Optional.empty()))
                .isEqualTo(1);
    }

    @Test
    void withoutUrlProbesThisProcessHealthOnTheDefaultPort() {
        Output out = new Output();
        assertThat(Main.run(new String[] {"probe"}, out.stream, Optional.empty()))
                .isBetween(0, 1);
        assertThat(out.text())
                .startsWith("probe: http://127.0.0.1:8080/observe/health ")
                .hasLineCount(1);
    }

    @Test
    void moreThanOneUrlIsAUsageError() {
        assertThatThrownBy(() -> Main.run(
                        new String[] {"probe", base + "/up", base + "/up"}, new Output().stream, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("probe takes");
    }

    private static final class Output {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            return bytes.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
        }
    }
}
