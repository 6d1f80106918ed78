package dev.warden.runtime.outbound;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * HTTP/1.1 to targets that users name (webhook endpoints, client ID metadata documents), with the SSRF guard at
 * the only place it can hold: the connection. The host is resolved once per connection, every address it resolves
 * to must pass the {@link TargetGuard}, and the socket connects to those checked addresses, never to a second
 * answer of the resolver (a DNS-rebinding name cannot pass the check and then point the connection at a private
 * address). TLS still verifies the certificate against the host name.
 *
 * <p>One total deadline covers connecting, sending, the answer's headers and its body: when it passes, the
 * connection is aborted, however slowly the peer keeps sending. The body read is bounded; redirects are never
 * followed; no cookies, no retries, no proxy from system properties. Thread-safe; connections are pooled.
 */
public final class GuardedHttp implements AutoCloseable {
    /** An answer: its status, its headers (first value of each, names in lower case), and its body as read. */
    public record Answer(int status, Map<String, String> headers, byte[] body, boolean truncated) {
        /** The first value of header {@code name}, if sent. */
        public Optional<String> header(String name) {
            return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
        }
    }

    /** The host resolved to an address the guard refuses: retrying will not help while DNS says the same. */
    public static final class RefusedTarget extends UnknownHostException {
        private static final long serialVersionUID = 1L;

        RefusedTarget(String reason) {
            super(reason);
        }
    }

    private static final ScheduledThreadPoolExecutor DEADLINES = deadlines();

    private final CloseableHttpClient client;
    private final Duration deadline;

    /**
     * @param guard    the check every resolved address must pass
     * @param deadline the most one exchange may take, start to last byte
     * @param tls      the TLS context for {@code https} (trust store, for tests and closed networks); the JVM's
     *                 default when empty
     */
    public GuardedHttp(TargetGuard guard, Duration deadline, Optional<SSLContext> tls) {
        this.deadline = deadline;
        Timeout timeout = Timeout.of(deadline);
        PoolingHttpClientConnectionManagerBuilder connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setDnsResolver(new CheckedResolver(guard))
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(timeout)
                        .setSocketTimeout(timeout)
                        .build())
                .setMaxConnTotal(64)
                .setMaxConnPerRoute(4);
        tls.ifPresent(context -> connections.setTlsSocketStrategy(
                ClientTlsStrategyBuilder.create().setSslContext(context).buildClassic()));
        this.client = HttpClients.custom()
                .setConnectionManager(connections.build())
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(timeout)
                        .setResponseTimeout(timeout)
                        .setRedirectsEnabled(false)
                        .build())
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableAuthCaching()
                .disableContentCompression()
                .evictIdleConnections(TimeValue.ofSeconds(30))
                .build();
    }

    /**
     * Sends {@code method} to {@code url} with {@code headers} and, if given, {@code body}; reads at most
     * {@code maxBodyBytes} of the answer (the answer says whether it was cut).
     *
     * @throws RefusedTarget        when the host resolves to an address the guard refuses
     * @throws HttpTimeoutException when no complete answer came within the deadline
     * @throws IOException          on any other network failure
     */
    public Answer send(String method, URI url, Map<String, String> headers, Optional<byte[]> body, int maxBodyBytes)
            throws IOException {
        HttpUriRequestBase request = new HttpUriRequestBase(method, url);
        headers.forEach(request::setHeader);
        body.ifPresent(bytes -> request.setEntity(new ByteArrayEntity(bytes, null)));
        ScheduledFuture<?> cut = DEADLINES.schedule(request::cancel, deadline.toMillis(), TimeUnit.MILLISECONDS);
        try (ClassicHttpResponse response = client.executeOpen(null, request, null)) {
            byte[] content = new byte[0];
            boolean truncated = false;
            HttpEntity entity = response.getEntity();
            if (entity != null) {
                try (InputStream in = entity.getContent()) {
                    content = in.readNBytes(maxBodyBytes);
                    truncated = in.read() >= 0;
                    if (truncated) {
                        // Do not drain the rest (it may never end): drop the connection instead.
                        request.cancel();
                    }
                }
            }
            Map<String, String> answerHeaders = new LinkedHashMap<>();
            for (Header header : response.getHeaders()) {
                answerHeaders.putIfAbsent(header.getName().toLowerCase(Locale.ROOT), header.getValue());
            }
            return new Answer(response.getCode(), answerHeaders, content, truncated);
        } catch (IOException e) {
            if (request.isCancelled() && !(e instanceof RefusedTarget)) {
                throw new HttpTimeoutException("no complete answer within " + deadline.toMillis() + " ms");
            }
            throw e;
        } finally {
            cut.cancel(false);
        }
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (IOException e) {
            // closing the pool: nothing left to do
        }
    }

    /** Resolves once and hands the connection only addresses the guard allows. */
    private record CheckedResolver(TargetGuard guard) implements DnsResolver {
        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            return guard.checkedAddresses(host);
        }

        @Override
        public String resolveCanonicalHostname(String host) {
            return host;
        }
    }

    private static ScheduledThreadPoolExecutor deadlines() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "warden-outbound-deadlines");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
